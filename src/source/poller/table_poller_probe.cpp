// SPDX-License-Identifier: Apache-2.0
// The table poller's start: the probe request that checks the table is readable and the
// instance's time zone before the first page.
#include <algorithm>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <utility>

#include "../rows/page_request.h"
#include "poller_detail.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/servicenow/instance_gate.h"
#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"
#include "snowcar/source/rows/row.h"
#include "startup_probe.h"
#include "table_poller.h"

namespace snowcar::source {

using namespace poller_detail;  // the helpers the poller's files share

// ---- startup probe ---------------------------------------------------------------------

void TablePoller::SendProbe() {
  servicenow::InstanceRequest request;
  request.target = ProbeTarget(*deps_.table);
  status_.SetLastRequestAt(NowMs());
  CountRequest(RequestPurpose::kProbe);
  deps_.client->Send(
      std::move(request), strand_,
      [self = shared_from_this()](const servicenow::CallResult& result) { self->OnProbe(result); });
  http_busy_ = true;
}

void TablePoller::OnProbe(const servicenow::CallResult& result) {
  http_busy_ = false;
  if (stopping_ || failed_) {
    if (stopping_) FinishStop();
    return;
  }
  if (!result.ok() && Decision(result) == servicenow::Action::kPauseInstance) {
    BackOff(
        Label() + ": the startup probe " + PauseCause(result) + ": " + result.ToStatus().message(),
        /*retry_probe=*/true, result.response.retry_after_ms, /*pause=*/true);
    return;
  }
  Status verdict = InterpretProbe(*deps_.table, result);
  if (verdict.code() == StatusCode::kUnavailable) {
    BackOff(verdict.message(), /*retry_probe=*/true, result.response.retry_after_ms);
    return;
  }
  if (!verdict.ok()) {
    Fail(verdict.message());
    return;
  }
  consecutive_failures_ = 0;
  SNOWCAR_LOG(kInfo, "source.probe_ok",
              {{"table", deps_.table->alias},
               {"rows_seen", static_cast<int64_t>(result.response.rows.size())}});
  CheckTimeZone();
  MarkStarted();
  status_.SetState(TableState::kRunning);
  status_.SetLastError("");
  ReportHealth();
  Pump();
}

void TablePoller::CheckTimeZone() {
  if (deps_.options.username.empty() || deps_.once == nullptr) return;
  if (deps_.once->time_zone_checked.exchange(true)) return;
  if (deps_.options.username.find_first_of("^\r\n") != std::string::npos) {
    // A '^' would change the meaning of the encoded query; never send such a value.
    SNOWCAR_LOG(kInfo, "source.time_zone_unknown",
                {{"why", "the user name holds a character that cannot go into a query"}});
    return;
  }
  servicenow::InstanceRequest request;
  request.target = TimeZoneTarget(deps_.options.username);
  CountRequest(RequestPurpose::kProbe);
  const std::string user = deps_.options.username;
  deps_.client->Send(std::move(request), strand_, [user](const servicenow::CallResult& result) {
    if (!result.ok()) {
      SNOWCAR_LOG(kInfo, "source.time_zone_unknown",
                  {{"user", user}, {"error", result.ToStatus().message()}});
      return;
    }
    auto zone = TimeZoneFrom(result);
    if (zone && !IsUtcZone(*zone)) {
      SNOWCAR_LOG(kWarn, "source.user_time_zone_not_utc",
                  {{"user", user},
                   {"time_zone", *zone},
                   {"why",
                    "the instance renders sys_updated_on in the user's zone; the source "
                    "assumes UTC and will stop tables whose rows come out of order. "
                    "Set the integration user's time zone to UTC"}});
    }
  });
}

}  // namespace snowcar::source
