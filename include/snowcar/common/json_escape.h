// SPDX-License-Identifier: Apache-2.0
// The one JSON string escaper: the log lines, the source's records and the emulator's rows
// write JSON text straight into a string, without a JSON tree, and all escape it here.
#pragma once

#include <string>
#include <string_view>

namespace snowcar {

// Appends `text` as the inside of a JSON string literal (no quotes): '"', '\\' and control
// characters escaped (\" \\ \n \r \t \b \f, the others as \u00XX); every other byte is copied
// unchanged, so UTF-8 stays UTF-8. Runs without anything to escape are copied 8 bytes at a
// time: the source and the emulator write every row through it.
void AppendJsonEscaped(std::string& out, std::string_view text);

// `text` as a quoted JSON string literal.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace snowcar
