// SPDX-License-Identifier: Apache-2.0
// THE place that turns what happened to one attempt into what to do next.
//
// Transport results (libcurl codes), HTTP statuses and body shapes are all decided here, so
// the retry meaning of every failure can be read in one table (docs/servicenow-client.md):
//   - retry this call (RETRYABLE, and AMBIGUOUS for methods safe to resend),
//   - hand a final outcome to the caller (PERMANENT, NOT_FOUND, PERMISSION, CONFLICT,
//     UNAUTHORIZED, AMBIGUOUS for POST/DELETE),
//   - or succeed.
#pragma once

#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/servicenow/instance_http.h"
#include "snowcar/servicenow/table_response.h"

namespace snowcar::servicenow {

enum class OutcomeClass {
  kOk,
  kRetryable,     // transient; as a final outcome it means the retries ran out
  kPermanent,     // the request is wrong or refused; resending will not help
  kAmbiguous,     // sent, but no usable answer: it may or may not have been applied
  kUnauthorized,  // credentials refused (after one fresh token / resend)
  kNotFound,      // 404 on a record
  kPermission,    // 403: the user's ACLs forbid it
  kConflict,      // 409 that is not a lock/busy signal
};

// "OK", "RETRYABLE", "PERMANENT", "AMBIGUOUS", "UNAUTHORIZED", "NOT_FOUND", "PERMISSION",
// "CONFLICT".
std::string_view OutcomeClassName(OutcomeClass klass);

// Everything known about one finished attempt.
struct AttemptFacts {
  Method method = Method::kGet;
  bool list_request = false;  // a GET of a table list (v1's 404 means "empty")
  int curl_code = 0;          // CURLcode; 0 = the transfer completed
  // The request left this process (bytes were written to the connection). Decides between
  // "never reached the instance" (safe to retry) and "may have been applied" (ambiguous).
  bool request_sent = false;
  bool too_large = false;                 // the body passed snow.http.max.response.bytes
  int http_status = 0;                    // 0 when no status line arrived
  const TableResponse* parsed = nullptr;  // nullptr when there is no answer
};

struct Verdict {
  OutcomeClass klass = OutcomeClass::kOk;
  // Resend (after a wait) if attempts and time remain.
  bool retry = false;
  // A fresh token (or basic credentials) may cure it: resend once at once.
  bool reauthenticate = false;
  // The instance asked us to slow down (429): throttle.
  bool throttled = false;
  // A v1 list's 404 read as "no rows".
  bool empty_list = false;
  // The cause concerns the whole instance, not this request: no connection could be made
  // (refused, unresolvable, timed out connecting, TLS) or the credentials were refused. When
  // a call ends with such a verdict the instance counts as unreachable
  // (instance_reachability.h) until it answers again.
  bool instance_unreachable = false;
  // Human text: the instance's own message (masked) or what went wrong on the wire.
  std::string message;
};

Verdict Classify(const AttemptFacts& facts);

// A Status for callers that only want one: OK, or a code with the retry meaning
// (kUnavailable for RETRYABLE, kPermissionDenied for PERMISSION/UNAUTHORIZED, ...).
StatusCode StatusCodeFor(OutcomeClass klass);

}  // namespace snowcar::servicenow
