// SPDX-License-Identifier: Apache-2.0
// The interface the source and the sink use to talk to the ServiceNow Table API.
//
// One logical call = Send(request): the client adds auth, retries what is safe to retry
// (waiting on timers, never blocking a thread), and hands back ONE CallResult with the final
// outcome class. Callers decide only what classify.h leaves to them: what to do with an
// AMBIGUOUS create or delete, a NOT_FOUND, a permanent failure.
//
// Tests substitute a fake TableClient; production uses CurlTableClient.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <cstdint>
#include <functional>
#include <string>

#include "snowcar/common/status.h"
#include "snowcar/servicenow/classify.h"
#include "snowcar/servicenow/instance_http.h"
#include "snowcar/servicenow/table_response.h"

namespace snowcar::servicenow {

class InstanceGate;

struct CallResult {
  OutcomeClass klass = OutcomeClass::kOk;
  int http_status = 0;  // of the last attempt; 0 when it got no answer
  // Why it failed, for operators and DLQ headers: the instance's message (masked) or what
  // went wrong on the wire. Empty on success.
  std::string message;
  // The call gave up for a reason that concerns the whole instance, not this request: no
  // connection (refused, DNS, timeout, TLS, certificate), refused credentials, no token
  // (Verdict::instance_unreachable). Resending later may work once the instance is back.
  bool instance_unreachable = false;
  int attempts = 0;        // attempts made, the first included (a 401 resend counts)
  std::string request_id;  // X-Request-Id sent with every attempt
  TableResponse response;  // the last answer, parsed (rows, record, headers)

  bool ok() const { return klass == OutcomeClass::kOk; }
  // OK, or a Status whose code carries the retry meaning and whose message names the
  // method, path, class, HTTP status and attempts.
  Status ToStatus() const;
  // Filled by the client for ToStatus().
  Method method = Method::kGet;
  std::string target;
};

using Completion = std::function<void(CallResult)>;

class TableClient {
 public:
  virtual ~TableClient() = default;

  // Starts one logical call. Callable from any thread; `done` runs exactly once, posted to
  // `executor` (typically the caller's strand), never inside Send itself. A request whose
  // `cancel` token is cancelled sends no further attempt (call_cancel.h).
  virtual void Send(InstanceRequest request, boost::asio::any_io_executor executor,
                    Completion done) = 0;

  // The instance's clock as best known: local time plus the drift measured from the Date
  // header of the latest answer (0 drift before any answer). The source's high-water mark
  // reads this so that the instance, not this host, decides which second is over.
  virtual int64_t ServerNowMillis() const = 0;
  // True once an answer carried a Date header, so ServerNowMillis is the instance's clock
  // rather than this host's. The source asks before bounding its first query.
  virtual bool ServerClockKnown() const { return true; }
  // The instance's gate (instance_gate.h), or nullptr when this client has none (fakes):
  // callers then wait on their own back-off.
  virtual InstanceGate* gate() { return nullptr; }
};

}  // namespace snowcar::servicenow
