// SPDX-License-Identifier: Apache-2.0
// Percent-encoding of path segments and query values (RFC 3986).
//
// Table names, field names and correlation values travel inside the path, so a value that
// holds '/', '?' or a space must be encoded by the client and decoded exactly once here.
#pragma once

#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/common/text.h"

namespace snowcar::api {

// Decodes %XX escapes. A '%' not followed by two hex digits is an error naming the escape
// and its offset. When `plus_is_space` (query strings, form style) '+' decodes to ' '.
Result<std::string> PercentDecode(std::string_view text, bool plus_is_space = false);

// Encodes everything but RFC 3986 unreserved characters (A-Z a-z 0-9 - . _ ~), so the
// result is safe as one path segment or one query value.
using ::snowcar::PercentEncode;

}  // namespace snowcar::api
