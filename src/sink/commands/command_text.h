// SPDX-License-Identifier: Apache-2.0
// Text helpers of the sink core: quoting untrusted record text into error messages, and the
// field names the sink never writes.
#pragma once

#include <string>
#include <string_view>

#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

// `text` without leading and trailing blanks (space, tab, CR, LF, FF, VT).
std::string TrimBlank(std::string_view text);

// ASCII lower case.
std::string LowerAscii(std::string_view text);

// `text` in single quotes, safe to put into a message, a log line or a header: at most 64
// bytes shown (longer text says how long it was), control characters, quotes, backslashes
// and bytes outside printable ASCII escaped as \xNN, so invalid UTF-8 or a line break in a
// record never breaks the message around it.
std::string Quote(std::string_view text);

// True for names the sink never sends as data: sys_id, sys_created_*, sys_updated_*,
// sys_mod_count, and the names of the routing and operation headers. ServiceNow maintains
// the system fields itself, and the header names are addressing, not content.
bool IsReservedFieldName(std::string_view name, const SinkSettings& settings);

}  // namespace snowcar::sink
