// SPDX-License-Identifier: Apache-2.0
// Reading one Table API answer: what the body says, independent of what to do about it.
//
// ParseTableResponse never throws and never aborts on hostile bytes; whatever it cannot read
// becomes BodyKind::kMalformed with a note saying why. Deciding retry versus error is
// classify.h's job, which reads this.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/servicenow/instance_http.h"
#include "snowcar/servicenow/response_headers.h"

namespace snowcar::servicenow {

enum class BodyKind {
  kEmpty,       // no body at all (204, or a 200 with Content-Length 0)
  kList,        // {"result":[...]}
  kRecord,      // {"result":{...}}
  kError,       // {"error":{...},"status":"failure"} with no result next to it
  kFailedList,  // result AND an error in one object: the instance cancelled a slow query
                // and sent the rows it had (HTTP 200). Never a complete page.
  kMalformed,   // not JSON, truncated, or JSON of another shape
  kOther,       // valid JSON object without result/error (e.g. a token answer)
};

std::string_view BodyKindName(BodyKind kind);

struct TableResponse {
  BodyKind kind = BodyKind::kEmpty;
  boost::json::array rows;     // kList and kFailedList (whatever was readable)
  boost::json::object record;  // kRecord, and kOther (the whole object)
  // From an error body: message and detail as sent (detail may be "" when null or blank).
  std::string error_message;
  std::string error_detail;
  // Why the body is kMalformed, for the operator.
  std::string malformed_reason;

  // Headers.
  std::optional<int64_t> total_count;     // X-Total-Count
  std::vector<LinkEntry> links;           // Link
  std::optional<int64_t> retry_after_ms;  // Retry-After, relative to the Date header if any
  std::optional<int64_t> server_date_ms;  // Date
  std::optional<std::string> location;    // Location (POST)
};

// Parses status line facts already in `response`. Never fails: see kMalformed.
TableResponse ParseTableResponse(const InstanceResponse& response, int64_t local_now_ms);

}  // namespace snowcar::servicenow
