// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/instance_http.h"

#include <cctype>

#include "snowcar/common/text.h"

namespace snowcar::servicenow {
namespace {}  // namespace

std::string_view MethodName(Method method) {
  switch (method) {
    case Method::kGet:
      return "GET";
    case Method::kPost:
      return "POST";
    case Method::kPatch:
      return "PATCH";
    case Method::kPut:
      return "PUT";
    case Method::kDelete:
      return "DELETE";
  }
  return "GET";
}

std::optional<std::string_view> InstanceResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return TrimSpace(value);
  }
  return std::nullopt;
}

bool IsTableListTarget(std::string_view target) {
  // Strip scheme and host of an absolute URL, then the query.
  if (auto scheme = target.find("://"); scheme != std::string_view::npos) {
    auto slash = target.find('/', scheme + 3);
    target = slash == std::string_view::npos ? std::string_view() : target.substr(slash);
  }
  if (auto q = target.find_first_of("?#"); q != std::string_view::npos) {
    target = target.substr(0, q);
  }
  while (!target.empty() && target.back() == '/') target.remove_suffix(1);
  auto api = target.find("/api/now/");
  if (api == std::string_view::npos) return false;
  std::string_view rest = target.substr(api + 9);  // after "/api/now/"
  if (rest.starts_with("v1/") || rest.starts_with("v2/")) rest.remove_prefix(3);
  if (!rest.starts_with("table/")) return false;
  rest.remove_prefix(6);
  return !rest.empty() && rest.find('/') == std::string_view::npos;
}

}  // namespace snowcar::servicenow
