// SPDX-License-Identifier: Apache-2.0
// The logical types of an Avro writer schema, read from its JSON text. avro-c parses the
// schema but drops `logicalType`, so without this a Connect Timestamp would reach ServiceNow
// as a count of milliseconds and a Connect Decimal as raw two's-complement bytes.
//
// The result is a tree that mirrors the schema's shape (records, unions, arrays, maps, with
// named types shared, so a recursive record is a cycle) and is walked alongside an avro-c
// value as it is rendered. Internal to the module (avro_json.cpp).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

enum class AvroLogical {
  kNone,  // the physical type (also every logical type this reader does not know)
  kTimestampMillis,
  kTimestampMicros,
  kLocalTimestampMillis,
  kLocalTimestampMicros,
  kDate,
  kTimeMillis,
  kTimeMicros,
  kDecimal,
};

// The logical type's name as the schema spells it ("timestamp-millis"), for messages.
std::string_view AvroLogicalName(AvroLogical logical);

struct LogicalNode {
  AvroLogical logical = AvroLogical::kNone;
  int32_t scale = 0;  // kDecimal only
  // Record fields and union branches in schema order; an array's items or a map's values as
  // the single child. Null where a child has no node (a primitive without a logical type).
  std::vector<const LogicalNode*> children;
};

class AvroLogicalTypes {
 public:
  // Reads `schema_json`, which avro-c has already accepted as an Avro schema. A logical type
  // on the wrong physical type, or a decimal whose scale is negative or above its precision,
  // is ignored as the Avro specification asks of readers. InvalidArgument when the text is
  // not JSON, or a decimal's scale is beyond kMaxDecimalScale.
  static Result<std::unique_ptr<AvroLogicalTypes>> Parse(std::string_view schema_json);

  // The node of the schema's top-level type; null when no logical type occurs anywhere.
  const LogicalNode* root() const { return root_; }

  // A decimal renders with `scale` digits after the point; the cap keeps one schema from
  // asking for gigabytes of zeros.
  static constexpr int32_t kMaxDecimalScale = 1000;

 private:
  friend class LogicalSchemaWalker;
  AvroLogicalTypes() = default;
  std::deque<LogicalNode> nodes_;  // a deque keeps node addresses stable as it grows
  const LogicalNode* root_ = nullptr;
};

}  // namespace snowcar::schema_registry
