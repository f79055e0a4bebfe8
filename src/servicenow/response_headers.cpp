#include "snowcar/servicenow/response_headers.h"

#include <array>
#include <cctype>
#include <charconv>

#include "snowcar/common/text.h"
#include "snowcar/common/time.h"

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

int MonthIndex(std::string_view token) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  if (token.size() != 3) return 0;
  std::string lower;
  for (char c : token) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (lower == kMonths[i]) return static_cast<int>(i) + 1;
  }
  return 0;
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
  // Tokenise on blanks, commas and dashes; the time is the token with ':' in it.
  std::vector<std::string_view> tokens;
  size_t i = 0;
  value = TrimSpace(value);
  while (i < value.size()) {
    while (i < value.size() && (value[i] == ' ' || value[i] == ',' || value[i] == '-')) ++i;
    size_t start = i;
    while (i < value.size() && value[i] != ' ' && value[i] != ',' && value[i] != '-') ++i;
    if (i > start) tokens.push_back(value.substr(start, i - start));
  }
  int month = 0;
  std::optional<int64_t> day, year;
  int hh = -1, mm = -1, ss = -1;
  for (auto t : tokens) {
    if (int m = MonthIndex(t); m != 0) {
      month = m;
    } else if (t.find(':') != std::string_view::npos) {
      if (t.size() != 8 || t[2] != ':' || t[5] != ':') return std::nullopt;
      auto h = ParseDecimal(t.substr(0, 2)), mi = ParseDecimal(t.substr(3, 2)),
           s = ParseDecimal(t.substr(6, 2));
      if (!h || !mi || !s) return std::nullopt;
      hh = static_cast<int>(*h);
      mm = static_cast<int>(*mi);
      ss = static_cast<int>(*s);
    } else if (auto n = ParseDecimal(t); n) {
      // IMF-fixdate / RFC 850 put the day before the month; asctime ("Sun Nov  6 08:49:37
      // 1994", five tokens) after it.
      if (!day && t.size() <= 2 && !year && (month == 0 || tokens.size() == 5)) {
        day = *n;
      } else if (!year) {
        year = *n;
        if (t.size() == 2) *year += *year >= 70 ? 1900 : 2000;  // RFC 850 two-digit year
      }
    }
  }
  if (month == 0 || !day || !year || hh < 0 || *day < 1 || *day > 31 || hh > 23 || mm > 59 ||
      ss > 60 || *year < 1970 || *year > 9999) {
    return std::nullopt;
  }
  const int64_t days =
      DaysFromCivil(*year, static_cast<unsigned>(month), static_cast<unsigned>(*day));
  return ((days * 24 + hh) * 60 + mm) * 60000 + static_cast<int64_t>(ss) * 1000;
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
