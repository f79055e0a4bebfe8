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
#include <string_view>
#include <utility>
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

// A list answer's rows left as text (InstanceRequest::rows_as_text): the body as received and
// where each element of "result" lies in it. The caller parses one row at a time, so a page
// never exists as one parsed tree; every row is known to be valid JSON.
struct RowTexts {
  std::string body;
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // offset and length of each row in body

  size_t size() const { return spans.size(); }
  bool empty() const { return spans.empty(); }
  std::string_view operator[](size_t i) const {
    return std::string_view(body).substr(spans[i].first, spans[i].second);
  }
};

// When `body` is exactly one valid JSON object whose only member is "result" holding an array,
// takes the body into the returned rows (`body` is left empty). Otherwise returns nothing and
// leaves `body` alone: the caller parses it whole, as for any other answer.
std::optional<RowTexts> SplitListRows(std::string& body);

struct TableResponse {
  BodyKind kind = BodyKind::kEmpty;
  boost::json::array rows;     // kList and kFailedList (whatever was readable)
  RowTexts row_texts;          // kList instead of `rows`, when the request asked for text
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
// The same; with `rows_as_text`, a plain list answer's rows go to `row_texts` (SplitListRows),
// taking `response.body` with them. Every other answer reads exactly as above.
TableResponse ParseTableResponse(InstanceResponse& response, int64_t local_now_ms,
                                 bool rows_as_text);

}  // namespace snowcar::servicenow
