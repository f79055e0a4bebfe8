// SPDX-License-Identifier: Apache-2.0
// A small JSON tree for command records, kept apart from boost::json::value for one reason:
// numbers keep their exact text. A command may carry an id such as 123456789012345678901234,
// which no double holds; the Table API takes every value as a string, so the sink renders
// the digits the producer wrote instead of a rounded copy. Parsing is bounded in depth and
// rejects invalid UTF-8 and repeated member names, so hostile input ends in a clear error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::sink {

struct JsonNode {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  Kind kind = Kind::kNull;
  bool boolean = false;
  // kString: the decoded text; kNumber: the number as normalised by NormalizeNumberText.
  std::string text;
  // kArray: the items. kObject: the member values, names in `names` at the same index
  // (member order is kept).
  std::vector<JsonNode> items;
  std::vector<std::string> names;

  bool is_nested() const { return kind == Kind::kArray || kind == Kind::kObject; }
  // The value of member `name` of an object, or nullptr.
  const JsonNode* Find(std::string_view name) const;
};

// "null", "a boolean", "a number", "a string", "an array", "an object".
std::string_view KindName(JsonNode::Kind kind);

// Deepest nesting ParseJson accepts; deeper input is refused, not recursed into.
inline constexpr size_t kMaxJsonDepth = 64;

// Parses one JSON document. InvalidArgument says what is wrong and at which byte, e.g.
// "not valid JSON (syntax error at byte 17)" or "nested deeper than 64 levels".
Result<JsonNode> ParseJson(std::string_view text);

// Compact JSON text of `node` (no spaces; numbers as stored).
std::string WriteCompactJson(const JsonNode& node);

// The decimal text of a JSON number literal, exact and without needless digits:
// "2.0" -> "2", "2.50" -> "2.5", "1e3" -> "1000", "-0" -> "0", "1.5E-2" -> "0.015".
// Numbers that would need more than 40 zeros written out keep an exponent: "1e400".
std::string NormalizeNumberText(std::string_view literal);

}  // namespace snowcar::sink
