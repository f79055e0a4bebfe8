// SPDX-License-Identifier: Apache-2.0
// Percent-encoding (RFC 3986) for path segments, query values and form bodies, on Boost.URL.
//
// Table names, field names and correlation values travel inside paths and queries, so a value
// that holds '/', '?', '&' or a space is encoded once by whoever builds the URL and decoded
// exactly once by whoever receives it.
#pragma once

#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar {

// Encodes everything but the unreserved characters (A-Z a-z 0-9 - . _ ~), upper-case hex, so
// the result is safe as one path segment, one query value or one form value.
std::string PercentEncode(std::string_view text);

// Decodes %XX escapes. A '%' not followed by two hex digits is an error naming the escape
// and its offset. When `plus_is_space` (query strings, form bodies) '+' decodes to ' '.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space = false);

}  // namespace snowcar
