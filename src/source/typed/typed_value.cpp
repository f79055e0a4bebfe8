// SPDX-License-Identifier: Apache-2.0
// ParseTypedValue: the strict readers behind typed records. Strict because a value that is
// not what its column says is reported (bad-row policy), never guessed at.
#include "snowcar/source/typed/typed_value.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Status Bad(std::string_view raw, std::string_view what) {
  std::string m = "'";
  m.append(raw.substr(0, 64));
  if (raw.size() > 64) m += "...";
  m += "' is not ";
  m += what;
  return Status::InvalidArgument(m);
}

Result<TypedValue> ReadInteger(std::string_view raw) {
  std::string_view digits = raw;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 19) return Bad(raw, "an integer");
  UInt128 v = 0;
  for (char c : digits) {
    if (!IsDigit(c)) return Bad(raw, "an integer");
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  const UInt128 limit =
      static_cast<UInt128>(std::numeric_limits<int64_t>::max()) + (negative ? 1 : 0);
  if (v > limit) return Bad(raw, "an integer within 64 bits");
  TypedValue t;
  t.kind = TypedValue::Kind::kInteger;
  t.integer = negative ? static_cast<int64_t>(-static_cast<Int128>(v)) : static_cast<int64_t>(v);
  return t;
}

Result<TypedValue> ReadDecimal(std::string_view raw, int scale) {
  std::string_view s = raw;
  const bool negative = !s.empty() && s.front() == '-';
  if (negative) s.remove_prefix(1);
  const size_t point = s.find('.');
  std::string_view whole = s.substr(0, point);
  std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : s.substr(point + 1);
  if (whole.empty() || (point != std::string_view::npos && fraction.empty())) {
    return Bad(raw, "a decimal number");
  }
  for (char c : whole) {
    if (!IsDigit(c)) return Bad(raw, "a decimal number");
  }
  for (char c : fraction) {
    if (!IsDigit(c)) return Bad(raw, "a decimal number");
  }
  // Digits past the scale are refused unless they are zeros: rounding would change the value.
  for (size_t i = static_cast<size_t>(scale); i < fraction.size(); ++i) {
    if (fraction[i] != '0') {
      return Bad(raw, "a decimal with at most " + std::to_string(scale) +
                          " digits after the point (the column's scale)");
    }
  }
  while (whole.size() > 1 && whole.front() == '0') whole.remove_prefix(1);
  if (whole.size() + static_cast<size_t>(scale) > static_cast<size_t>(kDecimalPrecision)) {
    return Bad(raw, "a decimal of at most " + std::to_string(kDecimalPrecision) + " digits");
  }
  Int128 v = 0;
  for (char c : whole) v = v * 10 + (c - '0');
  for (int i = 0; i < scale; ++i) {
    const size_t idx = static_cast<size_t>(i);
    v = v * 10 + (idx < fraction.size() ? fraction[idx] - '0' : 0);
  }
  TypedValue t;
  t.kind = TypedValue::Kind::kDecimal;
  t.text = raw;
  t.unscaled = negative ? -v : v;
  return t;
}

Result<TypedValue> ReadDouble(std::string_view raw) {
  // strtod accepts hex, "inf" and leading blanks; a decimal number is all the instance sends.
  for (char c : raw) {
    if (!(IsDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
      return Bad(raw, "a number");
    }
  }
  const std::string text(raw);
  char* end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(d)) return Bad(raw, "a number");
  TypedValue t;
  t.kind = TypedValue::Kind::kDouble;
  t.real = d;
  t.text = raw;
  return t;
}

// YYYY-MM-DD -> days since the epoch; false when it is no valid calendar date.
bool ReadDate(std::string_view s, int64_t* days) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  const int year = std::atoi(std::string(s.substr(0, 4)).c_str());
  const unsigned month = static_cast<unsigned>(std::atoi(std::string(s.substr(5, 2)).c_str()));
  const unsigned day = static_cast<unsigned>(std::atoi(std::string(s.substr(8, 2)).c_str()));
  static constexpr unsigned kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month == 2 && day == 29 && !leap) return false;
  *days = DaysFromCivil(year, month, day);
  return true;
}

}  // namespace

Result<TypedValue> ParseTypedValue(const Column& column, std::string_view raw) {
  TypedValue t;
  if (column.type == LogicalType::kString) {
    t.kind = TypedValue::Kind::kString;
    t.text = raw;
    return t;
  }
  if (raw.empty()) return t;  // null
  switch (column.type) {
    case LogicalType::kString:
    case LogicalType::kReference:
      t.kind = TypedValue::Kind::kString;
      t.text = raw;
      return t;
    case LogicalType::kInteger:
      return ReadInteger(raw);
    case LogicalType::kBoolean:
      t.kind = TypedValue::Kind::kBoolean;
      if (raw == "true" || raw == "1") {
        t.boolean = true;
      } else if (raw != "false" && raw != "0") {
        return Bad(raw, "a boolean (true or false)");
      }
      return t;
    case LogicalType::kDecimal:
      return ReadDecimal(raw, column.scale);
    case LogicalType::kDouble:
      return ReadDouble(raw);
    case LogicalType::kTimestamp: {
      t.kind = TypedValue::Kind::kTimestamp;
      int64_t days = 0;
      if (ReadDate(raw, &days)) {
        t.integer = days * 86400 * 1000;
        return t;
      }
      Result<int64_t> seconds = ParseSnowTimestamp(raw);
      if (!seconds.ok()) return Bad(raw, "a date-time (YYYY-MM-DD HH:MM:SS, UTC)");
      t.integer = *seconds * 1000;
      return t;
    }
    case LogicalType::kDate:
      t.kind = TypedValue::Kind::kDate;
      if (!ReadDate(raw, &t.integer)) return Bad(raw, "a date (YYYY-MM-DD)");
      return t;
  }
  return t;
}

}  // namespace snowcar::source
