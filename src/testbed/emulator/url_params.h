// SPDX-License-Identifier: Apache-2.0
// Query strings and form bodies, kept both raw and decoded.
//
// The raw form matters: an instance echoes the request's parameters in its Link URLs exactly
// as the client encoded them (fixture 07 keeps "number%3DINC0000040"), while the decoded
// form is what the parameters mean.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/url_encoding.h"

namespace snowcar::emulator {

struct UrlParam {
  std::string raw;    // "sysparm_query=a%3Db" as received (without '&')
  std::string key;    // decoded
  std::string value;  // decoded; "" when the parameter has no '='
};

// Decodes %XX escapes and, when `plus_as_space`, '+' as a space (query strings and form
// bodies, as a servlet container decodes them). Text with a malformed escape is kept as it
// came: what an instance does with one is not known (docs/testbed.md), and snowcar never
// sends one.
std::string DecodeOrVerbatim(std::string_view text, bool plus_as_space = true);

// Splits "a=1&b=2" (query string or application/x-www-form-urlencoded body). Empty pieces
// are skipped.
std::vector<UrlParam> ParseUrlParams(std::string_view raw);

// The first parameter named `key`, or nullptr.
const UrlParam* FindParam(const std::vector<UrlParam>& params, std::string_view key);

}  // namespace snowcar::emulator
