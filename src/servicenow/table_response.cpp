// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/table_response.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cctype>
#include <utility>

namespace snowcar::servicenow {
namespace {

namespace json = boost::json;

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string StringOrEmpty(const json::value* v) {
  if (v == nullptr || !v->is_string()) return {};
  std::string s(v->as_string());
  return IsBlank(s) ? std::string() : s;
}

void ReadError(const json::value& error, TableResponse& out) {
  if (error.is_object()) {
    const auto& obj = error.as_object();
    out.error_message = StringOrEmpty(obj.if_contains("message"));
    out.error_detail = StringOrEmpty(obj.if_contains("detail"));
  } else if (error.is_string()) {
    out.error_message = std::string(error.as_string());
  }
}

// Best effort on a body that is not JSON: an instance that cancels a slow query can cut the
// result mid-record and still append its error object. Pull the message out so the operator
// sees why, without trusting the rest.
void SalvageErrorMessage(std::string_view body, TableResponse& out) {
  size_t error = body.rfind("\"error\"");
  if (error == std::string_view::npos) return;
  size_t key = body.find("\"message\"", error);
  if (key == std::string_view::npos) return;
  size_t colon = body.find(':', key + 9);
  if (colon == std::string_view::npos) return;
  size_t open = body.find('"', colon + 1);
  if (open == std::string_view::npos) return;
  size_t close = body.find('"', open + 1);
  if (close == std::string_view::npos) return;
  out.error_message = std::string(body.substr(open + 1, close - open - 1));
}

void ParseBody(std::string_view body, TableResponse& out) {
  if (IsBlank(body)) {
    out.kind = BodyKind::kEmpty;
    return;
  }
  json::error_code ec;
  json::value root = json::parse(body, ec);
  if (ec) {
    out.kind = BodyKind::kMalformed;
    out.malformed_reason = "the answer is not valid JSON (" + ec.message() + ")";
    SalvageErrorMessage(body, out);
    return;
  }
  if (!root.is_object()) {
    out.kind = BodyKind::kMalformed;
    out.malformed_reason = "the answer is JSON but not an object";
    return;
  }
  auto& obj = root.as_object();
  json::value* result = obj.if_contains("result");
  const json::value* error = obj.if_contains("error");
  if (error != nullptr) ReadError(*error, out);
  if (result != nullptr && error != nullptr) {
    out.kind = BodyKind::kFailedList;
    if (result->is_array()) out.rows = std::move(result->as_array());
    return;
  }
  if (result != nullptr) {
    if (result->is_array()) {
      out.kind = BodyKind::kList;
      out.rows = std::move(result->as_array());
    } else if (result->is_object()) {
      out.kind = BodyKind::kRecord;
      out.record = std::move(result->as_object());
    } else {
      out.kind = BodyKind::kMalformed;
      out.malformed_reason = "\"result\" is neither a list nor a record";
    }
    return;
  }
  if (error != nullptr) {
    out.kind = BodyKind::kError;
    if (out.error_message.empty() && error->is_string()) {
      out.error_message = std::string(error->as_string());
    }
    // OAuth style: {"error":"server_error","error_description":"access_denied"}.
    if (const auto* desc = obj.if_contains("error_description"); desc && desc->is_string()) {
      out.error_detail = std::string(desc->as_string());
    }
    return;
  }
  out.kind = BodyKind::kOther;
  out.record = std::move(obj);
}

}  // namespace

std::string_view BodyKindName(BodyKind kind) {
  switch (kind) {
    case BodyKind::kEmpty:
      return "empty";
    case BodyKind::kList:
      return "list";
    case BodyKind::kRecord:
      return "record";
    case BodyKind::kError:
      return "error";
    case BodyKind::kFailedList:
      return "failed_list";
    case BodyKind::kMalformed:
      return "malformed";
    case BodyKind::kOther:
      return "other";
  }
  return "?";
}

namespace {
void ReadHeaders(const InstanceResponse& response, int64_t local_now_ms, TableResponse& out) {
  if (auto v = response.Header("X-Total-Count")) out.total_count = ParseTotalCount(*v);
  if (auto v = response.Header("Link")) out.links = ParseLinkHeader(*v);
  if (auto v = response.Header("Date")) out.server_date_ms = ParseHttpDate(*v);
  if (auto v = response.Header("Location")) out.location = std::string(*v);
  if (auto v = response.Header("Retry-After")) {
    out.retry_after_ms = ParseRetryAfterMillis(*v, out.server_date_ms.value_or(local_now_ms));
  }
}
}  // namespace

TableResponse ParseTableResponse(const InstanceResponse& response, int64_t local_now_ms) {
  TableResponse out;
  ParseBody(response.body, out);
  ReadHeaders(response, local_now_ms, out);
  return out;
}

TableResponse ParseTableResponse(InstanceResponse& response, int64_t local_now_ms,
                                 bool rows_as_text) {
  if (!rows_as_text) return ParseTableResponse(std::as_const(response), local_now_ms);
  TableResponse out;
  if (std::optional<RowTexts> rows = SplitListRows(response.body)) {
    out.kind = BodyKind::kList;
    out.row_texts = std::move(*rows);
  } else {
    ParseBody(response.body, out);
  }
  ReadHeaders(response, local_now_ms, out);
  return out;
}

}  // namespace snowcar::servicenow
