// SPDX-License-Identifier: Apache-2.0
// What a typed table's row stream writes with: its column types and the schema ids its keys
// and values are framed with. The row stream publishes one (RowWatermark::PublishTypes,
// audit_stream.h) whenever either changes, so that its deletes stream and reconciliation
// write their records in the same encoding (typed_deletes.h) without reading sys_dictionary
// or asking the registry themselves. Immutable once published: shared between strands.
#pragma once

#include <cstdint>
#include <optional>

#include "snowcar/source/typed/column_types.h"

namespace snowcar::source {

struct TypedSnapshot {
  std::optional<TableTypes> types;  // none when only the key is typed
  std::optional<int32_t> value_schema_id;
  std::optional<int32_t> key_schema_id;
};

}  // namespace snowcar::source
