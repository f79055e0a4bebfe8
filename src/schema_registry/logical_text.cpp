// SPDX-License-Identifier: Apache-2.0
#include "logical_text.h"

#include <boost/multiprecision/cpp_int.hpp>

#include "snowcar/common/time.h"

namespace snowcar::schema_registry {
namespace {

// Floor division: -1 ms is 1969-12-31 23:59:59, not 1970-01-01 00:00:00.
int64_t FloorDiv(int64_t n, int64_t d) {
  const int64_t q = n / d;
  return (n % d < 0) ? q - 1 : q;
}

int64_t PerSecond(AvroLogical logical) {
  const bool micros = logical == AvroLogical::kTimestampMicros ||
                      logical == AvroLogical::kLocalTimestampMicros ||
                      logical == AvroLogical::kTimeMicros;
  return micros ? 1'000'000 : 1'000;
}

// ServiceNow's date-time text has four year digits.
const int64_t kFirstDay = DaysFromCivil(1, 1, 1);
const int64_t kLastDay = DaysFromCivil(9999, 12, 31);

Status OutOfRange(AvroLogical logical, int64_t value, std::string_view range) {
  return Status::InvalidArgument(std::string(AvroLogicalName(logical)) + " value " +
                                 std::to_string(value) + " is outside " + std::string(range));
}

}  // namespace

Result<std::string> TimestampText(AvroLogical logical, int64_t count) {
  const int64_t seconds = FloorDiv(count, PerSecond(logical));
  if (seconds < kFirstDay * 86400 || seconds >= (kLastDay + 1) * 86400) {
    return OutOfRange(logical, count, "the years 0001-9999 a ServiceNow date-time holds");
  }
  return FormatSnowTimestamp(seconds);
}

Result<std::string> DateText(int64_t days) {
  if (days < kFirstDay || days > kLastDay) {
    return OutOfRange(AvroLogical::kDate, days, "the years 0001-9999 a ServiceNow date holds");
  }
  return FormatSnowTimestamp(days * 86400).substr(0, 10);
}

Result<std::string> TimeText(AvroLogical logical, int64_t count) {
  const int64_t per_second = PerSecond(logical);
  if (count < 0 || count >= 86400 * per_second) {
    return OutOfRange(logical, count, "one day (a time of day counts from midnight)");
  }
  return FormatSnowTimestamp(count / per_second).substr(11);
}

Result<std::string> DecimalText(std::string_view unscaled, int32_t scale) {
  if (unscaled.empty()) {
    return Status::InvalidArgument(
        "a decimal has no bytes (its unscaled value needs at least one)");
  }
  if (unscaled.size() > kMaxDecimalBytes) {
    return Status::InvalidArgument("a decimal of " + std::to_string(unscaled.size()) +
                                   " bytes is longer than the " + std::to_string(kMaxDecimalBytes) +
                                   " this reader takes");
  }
  namespace mp = boost::multiprecision;
  mp::cpp_int value;
  const auto* p = reinterpret_cast<const unsigned char*>(unscaled.data());
  mp::import_bits(value, p, p + unscaled.size(), 8, /*msv_first=*/true);
  const bool negative = (p[0] & 0x80) != 0;
  // Two's complement: the bytes read as unsigned are the value plus 2^(8n) when negative.
  if (negative) value = (mp::cpp_int(1) << (8 * unscaled.size())) - value;
  std::string digits = value.str();
  if (scale > 0) {
    const auto s = static_cast<size_t>(scale);
    if (digits.size() <= s) digits.insert(0, s + 1 - digits.size(), '0');
    digits.insert(digits.size() - s, 1, '.');
  }
  if (negative) digits.insert(0, 1, '-');
  return digits;
}

}  // namespace snowcar::schema_registry
