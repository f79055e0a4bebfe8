// SPDX-License-Identifier: Apache-2.0
// ServiceNow date-times ("YYYY-MM-DD HH:MM:SS", whole seconds, UTC) and a clock seam.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar {

// Seconds since the Unix epoch for a ServiceNow UTC date-time. Rejects anything that is not
// exactly `YYYY-MM-DD HH:MM:SS` with a valid calendar date, naming the bad text.
Result<int64_t> ParseSnowTimestamp(std::string_view text);

// Days since 1970-01-01 of a proleptic Gregorian date (no time zone involved).
int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);

// `YYYY-MM-DD HH:MM:SS` for seconds since the epoch (UTC).
std::string FormatSnowTimestamp(int64_t epoch_seconds);

// RFC 3339 with milliseconds, for logs and the socket API: 2026-12-02T08:29:17.123Z
std::string FormatIso8601Millis(int64_t epoch_millis);

// A source of "now". Production uses SystemClock; tests and the emulator inject their own.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMillis() const = 0;
  int64_t NowSeconds() const { return NowMillis() / 1000; }
};

class SystemClock final : public Clock {
 public:
  int64_t NowMillis() const override;
  static const SystemClock& Instance();
};

}  // namespace snowcar
