// SPDX-License-Identifier: Apache-2.0
// Kafka Connect's logical types in JSON Schema payloads. JsonSchemaConverter writes a
// Timestamp as an integer of milliseconds, a Date as an integer of days, a Time as an integer
// of milliseconds since midnight, and a Decimal as base64 of its unscaled two's-complement
// bytes (decimal.format=BASE64, the default) or as a number (NUMERIC). JSON Schema has no
// type for them: only the schema's `title` (org.apache.kafka.connect.data.Timestamp, ...)
// tells, so without this the Table API would get the raw integer or the base64 text.
//
// The payload is copied token by token, so every value outside those places keeps its exact
// text (a 30-digit number is not read through a double). Internal to the module
// (framed_decoder.cpp).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

struct ConnectJsonNode {
  enum class Kind { kNone, kTimestamp, kDate, kTime, kDecimal };
  Kind kind = Kind::kNone;
  int32_t scale = 0;  // kDecimal: connect.parameters.scale
  std::map<std::string, const ConnectJsonNode*, std::less<>> properties;
  const ConnectJsonNode* additional = nullptr;  // a Connect map's values
  const ConnectJsonNode* items = nullptr;       // an array's items
};

class ConnectJsonTypes {
 public:
  // Reads a JSON Schema. A schema without Connect's logical titles gives an empty result
  // (root() null): its payloads are used as they are. `$ref`, and a oneOf of more than null
  // and one type (a Connect union), are not followed. InvalidArgument when it is not JSON.
  static Result<std::unique_ptr<ConnectJsonTypes>> Parse(std::string_view schema_json);

  const ConnectJsonNode* root() const { return root_; }

  // `payload` with each Connect logical value replaced by the Table API's text for it (as in
  // logical_text.h); null stays null, a Decimal written as a number stays that number.
  // InvalidArgument when the payload is not JSON, or a logical value has the wrong JSON type
  // or no such text, naming the field and the value.
  Result<std::string> Rewrite(std::string_view payload) const;

 private:
  friend class ConnectSchemaWalker;
  ConnectJsonTypes() = default;
  std::deque<ConnectJsonNode> nodes_;
  const ConnectJsonNode* root_ = nullptr;
};

}  // namespace snowcar::schema_registry
