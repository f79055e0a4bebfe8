// SPDX-License-Identifier: Apache-2.0
// One field's text, as the Table API sends it, read as its column's logical type
// (column_types.h). Pure; used by the typed record encoders.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/source/typed/column_types.h"

namespace snowcar::source {

// GCC's 128-bit integers: a decimal of 38 digits fits. __extension__ keeps -Wpedantic quiet.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

struct TypedValue {
  enum class Kind { kNull, kString, kInteger, kBoolean, kDecimal, kDouble, kTimestamp, kDate };
  Kind kind = Kind::kNull;
  std::string_view text;  // kString: the value; kDecimal: the digits as received
  int64_t integer = 0;    // kInteger; kTimestamp: ms since the epoch; kDate: days since it
  bool boolean = false;
  double real = 0;      // kDouble
  Int128 unscaled = 0;  // kDecimal: the value times 10^scale
};

// Reads `raw` as `column`'s type. "" is null except for string columns, which keep "" as it
// came (the instance sends "" for an empty string and for null alike). Errors say only what is
// wrong with the value ("'12a' is not an integer"); the caller names the table, row and field.
//   integer    optional '-', 1..19 digits, within int64
//   boolean    true / false (also 1 / 0, as some instances answer)
//   decimal    optional '-', digits, optionally '.' and digits; at most `scale` digits after
//              the point unless the extra ones are zeros, at most 38 digits in all
//   double     a finite decimal number (strtod, whole text)
//   timestamp  YYYY-MM-DD HH:MM:SS, UTC (also a bare YYYY-MM-DD, as midnight)
//   date       YYYY-MM-DD
// `text` views into `raw`.
Result<TypedValue> ParseTypedValue(const Column& column, std::string_view raw);

}  // namespace snowcar::source
