// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/text.h"

// Before Beast's status.hpp, which uses std::ostream without including it (Boost 1.81).
#include <boost/beast/http/status.hpp>
#include <ostream>

namespace snowcar {
namespace {
char LowerAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (LowerAscii(a[i]) != LowerAscii(b[i])) return false;
  }
  return true;
}

std::string_view TrimSpace(std::string_view s) {
  const auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
  };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view HttpReasonPhrase(int status) {
  namespace http = boost::beast::http;
  if (http::int_to_status(static_cast<unsigned>(status)) == http::status::unknown) return "Unknown";
  const auto reason = http::obsolete_reason(static_cast<http::status>(status));
  return {reason.data(), reason.size()};
}

}  // namespace snowcar
