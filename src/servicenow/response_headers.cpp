// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/response_headers.h"

#include <curl/curl.h>

#include <cctype>
#include <charconv>

#include "snowcar/common/text.h"

namespace snowcar::servicenow {
namespace {

std::optional<int64_t> ParseDecimal(std::string_view s) {
  s = TrimSpace(s);
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < 0) return std::nullopt;
  return value;
}

// An HTTP-date always carries the time of day as a blank-separated hh:mm:ss token (two digits
// each); curl_getdate would take a date without it as midnight, and "8:49:37" as well.
bool HasTimeOfDay(std::string_view v) {
  const auto digit = [&](size_t i) { return std::isdigit(static_cast<unsigned char>(v[i])) != 0; };
  for (size_t i = 0; i + 8 <= v.size(); ++i) {
    if ((i == 0 || v[i - 1] == ' ') && (i + 8 == v.size() || v[i + 8] == ' ') && digit(i) &&
        digit(i + 1) && v[i + 2] == ':' && digit(i + 3) && digit(i + 4) && v[i + 5] == ':' &&
        digit(i + 6) && digit(i + 7)) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<LinkEntry> ParseLinkHeader(std::string_view value) {
  std::vector<LinkEntry> out;
  size_t pos = 0;
  while (pos < value.size()) {
    size_t open = value.find('<', pos);
    if (open == std::string_view::npos) break;
    size_t close = value.find('>', open + 1);
    if (close == std::string_view::npos) break;  // truncated: keep what was complete
    LinkEntry entry;
    entry.url = std::string(value.substr(open + 1, close - open - 1));
    // Parameters run to the next '<' (URLs never hold one unescaped).
    size_t next = value.find('<', close + 1);
    std::string_view params = value.substr(
        close + 1, next == std::string_view::npos ? std::string_view::npos : next - close - 1);
    size_t rel = params.find("rel=");
    if (rel != std::string_view::npos) {
      std::string_view r = params.substr(rel + 4);
      if (!r.empty() && r.front() == '"') {
        r.remove_prefix(1);
        size_t q = r.find('"');
        if (q == std::string_view::npos)
          r = {};  // unterminated quote: incomplete entry
        else
          r = r.substr(0, q);
      } else {
        size_t e = r.find_first_of(",; ");
        r = r.substr(0, e);
      }
      entry.rel = std::string(TrimSpace(r));
    }
    if (!entry.rel.empty()) out.push_back(std::move(entry));
    if (next == std::string_view::npos) break;
    pos = next;
  }
  return out;
}

std::optional<std::string> FindLink(const std::vector<LinkEntry>& links, std::string_view rel) {
  for (const auto& link : links) {
    if (link.rel == rel) return link.url;
  }
  return std::nullopt;
}

std::optional<int64_t> ParseHttpDate(std::string_view value) {
  // libcurl's date parser reads the three HTTP forms (and checks the fields' ranges).
  value = TrimSpace(value);
  if (!HasTimeOfDay(value)) return std::nullopt;
  const time_t at = curl_getdate(std::string(value).c_str(), nullptr);
  if (at < 0) return std::nullopt;
  return static_cast<int64_t>(at) * 1000;
}

std::optional<int64_t> ParseRetryAfterMillis(std::string_view value, int64_t now_ms) {
  value = TrimSpace(value);
  if (value.empty()) return std::nullopt;
  if (std::isdigit(static_cast<unsigned char>(value.front()))) {
    auto seconds = ParseDecimal(value);
    if (!seconds || *seconds > int64_t{1} << 40) return std::nullopt;
    return *seconds * 1000;
  }
  auto at = ParseHttpDate(value);
  if (!at) return std::nullopt;
  return *at > now_ms ? *at - now_ms : 0;
}

std::optional<int64_t> ParseTotalCount(std::string_view value) { return ParseDecimal(value); }

}  // namespace snowcar::servicenow
