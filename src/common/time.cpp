// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/time.h"

#include <chrono>
#include <cstdio>

namespace snowcar {
namespace {}  // namespace

// Howard Hinnant's days_from_civil: proleptic Gregorian, no time zone database involved.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

namespace {

void CivilFromDays(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

bool Digits(std::string_view s, size_t pos, size_t n, unsigned& out) {
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + static_cast<unsigned>(s[i] - '0');
  }
  return true;
}

}  // namespace

Result<int64_t> ParseSnowTimestamp(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("invalid date-time '" + std::string(text.substr(0, 64)) + "': " +
                                   std::string(why) + " (expected YYYY-MM-DD HH:MM:SS, UTC)");
  };
  if (text.size() != 19) return bad("wrong length");
  if (text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' || text[16] != ':') {
    return bad("wrong separators");
  }
  unsigned y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!Digits(text, 0, 4, y) || !Digits(text, 5, 2, mo) || !Digits(text, 8, 2, d) ||
      !Digits(text, 11, 2, h) || !Digits(text, 14, 2, mi) || !Digits(text, 17, 2, s)) {
    return bad("non-digit where a digit belongs");
  }
  if (mo < 1 || mo > 12) return bad("month out of range");
  if (d < 1 || d > DaysInMonth(y, mo)) return bad("day out of range");
  if (h > 23 || mi > 59 || s > 59) return bad("time out of range");
  return DaysFromCivil(y, mo, d) * 86400 + int64_t{h} * 3600 + int64_t{mi} * 60 + s;
}

std::string FormatSnowTimestamp(int64_t epoch_seconds) {
  int64_t days = epoch_seconds / 86400;
  int64_t rem = epoch_seconds % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(days, y, m, d);
  char buf[64];  // room for any int64 year, so the output is never truncated
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02lld:%02lld:%02lld", static_cast<long long>(y),
                m, d, static_cast<long long>(rem / 3600), static_cast<long long>(rem / 60 % 60),
                static_cast<long long>(rem % 60));
  return buf;
}

std::string FormatIso8601Millis(int64_t epoch_millis) {
  int64_t secs = epoch_millis / 1000;
  int64_t ms = epoch_millis % 1000;
  if (ms < 0) {
    ms += 1000;
    --secs;
  }
  std::string s = FormatSnowTimestamp(secs);
  s[10] = 'T';
  char buf[8];
  std::snprintf(buf, sizeof buf, ".%03lldZ", static_cast<long long>(ms));
  return s + buf;
}

int64_t SystemClock::NowMillis() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const SystemClock& SystemClock::Instance() {
  static const SystemClock clock;
  return clock;
}

}  // namespace snowcar
