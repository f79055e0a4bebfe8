// SPDX-License-Identifier: Apache-2.0
// One command -> the REST calls that apply it (reference behaviour section 3).
//
//   CREATE        POST /api/now/table/<t> (the command's sys_id in the body when it has one)
//   PATCH / PUT   PATCH|PUT /api/now/table/<t>/<sys_id>
//   DELETE        DELETE /api/now/table/<t>/<sys_id>
//
// and what the answers lead to:
//   - a first-try 404 on PATCH/PUT/DELETE follows snow.sink.not.found.behavior: fail
//     (NOT_FOUND), ignore (done, nothing written), create (POST with the sys_id; for a
//     DELETE there is nothing to create, so it reads as ignore);
//   - a PATCH or PUT whose answer was lost (after the client's own resends) is held: the
//     failure is RETRIES_EXHAUSTED, which the lane retries; resending it cannot do harm twice;
//   - a DELETE whose answer was lost is sent again, and a 404 on any later send, also one of
//     a lane retry (WriteHistory), is success (the earlier one deleted the row);
//   - a CREATE whose answer was lost follows snow.sink.create.ambiguous.behavior: retry
//     (POST again: may duplicate; at most snow.retry.max.attempts POSTs with a lost answer
//     per record, lane retries included, then AMBIGUOUS), fail_ambiguous (AMBIGUOUS),
//     correlation_lookup (look the correlation value up again, then 0 rows -> POST, 1 that
//     carries the value -> PATCH it, otherwise AMBIGUOUS). A CREATE that carries its own
//     sys_id is settled by a GET of that sys_id instead (also at the start of a later try of
//     the record), under retry and correlation_lookup: such a create can never duplicate.
//   - under correlation_lookup every CREATE first consults the correlation cache in the
//     state store, then the instance (GET ...?sysparm_query=<field>=<value>&sysparm_limit=2).
//     The lookup asks for the correlation field too, and a row whose value is not the
//     command's is not used. The cache is written after every successful create or lookup;
//     a cached sys_id whose PATCH answers 404 is erased and looked up again.
//
// Runs on the caller's strand: every completion is posted back to the executor given.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>
#include <optional>

#include "limited_client.h"
#include "snowcar/servicenow/call_cancel.h"
#include "snowcar/sink/commands/command.h"
#include "snowcar/sink/commands/failure.h"
#include "snowcar/sink/sink_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::sink {

// What earlier tries of the same record left behind. The lane keeps one per record across its
// own retries of that record, so a fresh Write of the same command still knows what may
// already have reached the instance.
struct WriteHistory {
  int ambiguous_posts = 0;   // POSTs whose answer was lost: each may have created a row
  bool delete_sent = false;  // a DELETE whose answer was lost: it may have removed the row
};

struct WriteOutcome {
  std::optional<Applied> applied;  // set on success (including an ignored not-found)
  std::optional<Failure> failure;  // set otherwise
  bool ignored = false;            // success because not.found.behavior=ignore said so
  bool ok() const { return applied.has_value(); }
};

class TableApiWriter {
 public:
  using Done = std::function<void(WriteOutcome)>;

  // `store` may be null when the correlation cache is not used (tests of other paths).
  TableApiWriter(LimitedClient& client, state::StateStore* store, const SinkSettings& settings)
      : client_(client), store_(store), settings_(settings) {}

  // Applies `command`; `done` runs once, posted to `executor`. `history` (may be null: a
  // fresh one) is read and updated on `executor`; pass the same one to every try of a record.
  // `cancel` (may be null) goes with every call: once cancelled, nothing more is sent and the
  // write fails as a held RETRIES_EXHAUSTED (call_cancel.h).
  void Write(Command command, boost::asio::any_io_executor executor, Done done,
             std::shared_ptr<WriteHistory> history = nullptr,
             std::shared_ptr<servicenow::CallCancel> cancel = nullptr);

 private:
  struct Op;

  LimitedClient& client_;
  state::StateStore* store_;
  const SinkSettings& settings_;
};

}  // namespace snowcar::sink
