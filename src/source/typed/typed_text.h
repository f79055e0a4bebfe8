// SPDX-License-Identifier: Apache-2.0
// What the typed encoders share (typed_record.cpp defines them): a field's stored text, its
// display text, and the error for a value that does not parse as its column's type.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/source/typed/column_types.h"

namespace snowcar::source {

// The stored value of a field as text: a string as is, {"value": ...} by its value, a JSON
// number or boolean as its text, null as "". `scratch` holds the text of a number.
std::string_view RawText(const boost::json::value& v, std::string& scratch);
// The display text of a field under display_value=true/all ({"display_value": ...}).
std::string_view DisplayText(const boost::json::value& v);
// InvalidArgument naming the table, the row, the field, its types and `why`, and the
// bad-row policy that skips such rows.
Status BadValue(std::string_view alias, std::string_view table, std::string_view sys_id,
                const Column& c, const Status& why);

}  // namespace snowcar::source
