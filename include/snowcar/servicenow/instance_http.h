// SPDX-License-Identifier: Apache-2.0
// The HTTP request and answer the ServiceNow client exchanges, free of any transport.
//
// Kept as plain values so parsing and classification can be tested on recorded answers
// without a socket, and so the source and sink build requests without knowing libcurl.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snowcar::servicenow {

class CallCancel;  // call_cancel.h

enum class Method { kGet, kPost, kPatch, kPut, kDelete };

// "GET", "POST", ...
std::string_view MethodName(Method method);

// One logical call to the instance. Retries of it resend the same request.
struct InstanceRequest {
  Method method = Method::kGet;
  // Path and query relative to `snow.url`, starting with '/', e.g.
  // "/api/now/table/incident?sysparm_limit=100". An absolute http(s) URL is used as is
  // (the token endpoint may live elsewhere).
  std::string target;
  // JSON body for POST/PATCH/PUT; empty sends none.
  std::string body;
  // Extra headers the caller wants (rare). Auth, Accept, User-Agent and X-Request-Id are
  // set by the client and must not be given here.
  std::vector<std::pair<std::string, std::string>> headers;
  // Reused across retries; the client makes one when empty.
  std::string request_id;
  // A list answer comes back as the rows' text (TableResponse::row_texts) rather than parsed:
  // the source reads large pages one row at a time.
  bool rows_as_text = false;
  // When set and cancelled, no further attempt of the call is sent and a retry wait ends at
  // once (call_cancel.h). Null: the call cannot be withdrawn.
  std::shared_ptr<CallCancel> cancel;
};

struct InstanceResponse {
  int status = 0;  // 0: no answer was received
  // Header names as received; lookups ignore case. Repeated headers stay separate.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // The first header named `name` (any case), without surrounding blanks.
  std::optional<std::string_view> Header(std::string_view name) const;
};

// True when `target`'s path is a table list (".../api/now[/v1|/v2]/table/<name>", no sys_id).
// A v1 list answers an empty result with 404 "No Record found"; only lists get that pardon.
bool IsTableListTarget(std::string_view target);

}  // namespace snowcar::servicenow
