// SPDX-License-Identifier: Apache-2.0
// The text the Table API takes for a value of an Avro logical type. ServiceNow reads every
// field as a string: a date-time as `YYYY-MM-DD HH:MM:SS` in UTC with whole seconds, a date
// as `YYYY-MM-DD`, a time as `HH:MM:SS`, a decimal as its exact digits. Internal to the
// module (avro_json.cpp).
//
// Each function returns InvalidArgument, saying what the value is and why it does not fit,
// for a value outside what that text can hold; the caller adds the field's name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "avro_logical.h"
#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

// An instant or a local date-time (timestamp-* and local-timestamp-*: a count of millis or
// micros since 1970-01-01 00:00:00) as `YYYY-MM-DD HH:MM:SS`. The fraction of a second is
// dropped (towards the earlier second): the Table API keeps whole seconds. Years 0001-9999.
Result<std::string> TimestampText(AvroLogical logical, int64_t count);

// date: days since 1970-01-01 as `YYYY-MM-DD`. Years 0001-9999.
Result<std::string> DateText(int64_t days);

// time-millis / time-micros: time since midnight as `HH:MM:SS`, the fraction dropped. Must
// be within one day.
Result<std::string> TimeText(AvroLogical logical, int64_t count);

// decimal: `unscaled` is the two's-complement big-endian integer (bytes or fixed), the value
// unscaled * 10^-scale, written exactly: "12.34", "-0.05", "7". At most kMaxDecimalBytes.
Result<std::string> DecimalText(std::string_view unscaled, int32_t scale);

// 1 KiB of unscaled bytes is over 2400 digits, far beyond any database decimal; the cap
// keeps a hostile record from costing quadratic time in the conversion to digits.
inline constexpr size_t kMaxDecimalBytes = 1024;

}  // namespace snowcar::schema_registry
