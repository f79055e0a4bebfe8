// SPDX-License-Identifier: Apache-2.0
// Type checking and normalisation of one raw value against its option table entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/config/options.h"

namespace snowcar::config {

// Returns the value in its stored form (trimmed; bools as true/false; enums in the table's
// spelling; lists re-joined with ","; URLs without a trailing '/'), or InvalidArgument whose
// message describes the problem to follow "'<value>' " or "the value ", e.g.
// "is not a whole number (allowed: a whole number from 0 to 256)". The message never
// repeats the value, so callers decide whether it may be shown.
Result<std::string> NormalizeValue(const OptionSpec& spec, std::string_view raw);

// What the entry accepts, for messages and docs: "a whole number from 0 to 256",
// "one of: json, text", "true or false", ...
std::string DescribeAllowed(const OptionSpec& spec);

// Splits a stored list value ("a,b") into items; "" is the empty list.
std::vector<std::string> SplitList(std::string_view stored);

std::string Trim(std::string_view s);
std::string Lower(std::string_view s);

}  // namespace snowcar::config
