// SPDX-License-Identifier: Apache-2.0
// Small text helpers shared by the HTTP code of the socket API, the ServiceNow client and
// the emulator.
#pragma once

#include <string>
#include <string_view>

namespace snowcar {

// ASCII case-insensitive equality (HTTP header names, enum-like parameter values).
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// `s` without leading and trailing ASCII white space (space, tab, CR, LF, VT, FF).
std::string_view TrimSpace(std::string_view s);

// The reason phrase of an HTTP status ("Not Found" for 404), from Boost.Beast's table of the
// registered codes; "Unknown" for any other number. The socket API and the emulator answer
// with it.
std::string_view HttpReasonPhrase(int status);

}  // namespace snowcar
