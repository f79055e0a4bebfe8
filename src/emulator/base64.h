// SPDX-License-Identifier: Apache-2.0
// Standard base64 (RFC 4648, with padding): Basic auth and Batch API bodies.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace snowcar::emulator {

std::string Base64Encode(std::string_view data);
// nullopt when `text` is not valid base64 (whitespace is skipped, padding optional).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace snowcar::emulator
