// SPDX-License-Identifier: Apache-2.0
// Reading Java `.properties` text, the format Kafka and Kafka Connect users already write.
//
// Follows java.util.Properties#load: `key=value`, `key: value` and `key value` separators;
// `#` and `!` comment lines; a trailing odd backslash joins the next line (its leading
// whitespace dropped); escapes \t \n \r \f \\ \uXXXX, and `\x` meaning a literal x for any
// other x. Differences, on purpose: the text is read as UTF-8 (Java 8 assumed Latin-1), and a
// malformed \u escape or an empty key is an error naming the origin and line instead of an
// exception or a silently odd entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::config {

struct Property {
  std::string key;
  std::string value;
  int line = 0;  // 1-based line where the (possibly continued) entry starts
};

struct Properties {
  // One entry per key, in order of first appearance; a repeated key keeps its last value
  // and line (the Java behaviour), and adds a note.
  std::vector<Property> entries;
  // "app.properties:9: key 'threads' repeats line 3; the last value wins"
  std::vector<std::string> notes;
};

// Parses properties text. `origin` names the text in messages (usually the file path).
// Reports every malformed line at once: "app.properties:4: malformed \u escape ...".
Result<Properties> ParseProperties(std::string_view text, std::string_view origin);

// Like ParseProperties, but keeps the well-formed entries and appends one line per malformed
// entry to `errors` ("app.properties:4: ..."), so a caller can report them with problems
// found later in the good entries.
Properties ParsePropertiesCollecting(std::string_view text, std::string_view origin,
                                     std::vector<std::string>& errors);

// Reads (at most kConfigFileLimit) and parses a file; an unreadable or oversized file is an
// error naming the path and the reason.
Result<Properties> ReadPropertiesFile(const std::string& path);

// Escapes a key or value so that ParseProperties reads it back unchanged (used by
// `snowcar config print`).
std::string EscapePropertiesKey(std::string_view key);
std::string EscapePropertiesValue(std::string_view value);

}  // namespace snowcar::config
