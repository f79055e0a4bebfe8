// SPDX-License-Identifier: Apache-2.0
// Standard base64 (RFC 4648, with padding): Basic auth headers, Batch API bodies, and the
// encoded forms of secrets that redaction masks.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace snowcar {

std::string Base64Encode(std::string_view data);
// nullopt when `text` is not valid base64 (whitespace is skipped, padding optional).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace snowcar
