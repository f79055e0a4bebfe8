// SPDX-License-Identifier: Apache-2.0
// Turning one ServiceNow row into the Kafka record the source produces (design section 5).
//
//   key        sys_id
//   value      the row as JSON: schemaless (as received), strings (every value a string),
//              optionally wrapped in {"before":null,"after":row,"source":{...},"op":"u",
//              "ts_ms":...} when snow.source.emit.envelope=true
//   headers    snow.source.operation=UPSERT, snow.table=<name>, snow.instance=<host>,
//              snow.extracted_at=<ISO-8601 ms UTC>
//   timestamp  the row's timestamp field, in ms
//
// display_value=true asks the instance for `all` and renders display values, except the
// cursor fields (id, timestamp, sys_mod_count), which stay raw so consumers can dedup on them.
//
// The value, mode by mode (fields keep the order the instance sent them in):
//   schemaless, false or all  the row exactly as received
//   schemaless, true          each field's display value; a reference keeps
//                             {"display_value","link"} when links are not excluded (the shape
//                             the instance itself sends for `true`); cursor fields raw
//   strings                   a flat object of strings: null -> "", numbers and booleans as
//                             text, a reference or {"display_value","value"} object flattened
//                             to its stored value (false), its display value (true; cursor
//                             fields raw) or, for all, the stored value under the field's name
//                             plus the display value under "dv_<field>"; anything else
//                             nested becomes its JSON text
//   envelope                  {"before":null,"after":<value above>,"source":{"connector":
//                             "snowcar","instance","table","alias","sys_id","sys_mod_count",
//                             "ts_ms":<row ts ms>},"op":"u","ts_ms":<extracted_at_ms>}
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <string>

#include "snowcar/kafka/record.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source {

inline constexpr const char* kOperationHeader = "snow.source.operation";
inline constexpr const char* kTableHeader = "snow.table";
inline constexpr const char* kInstanceHeader = "snow.instance";
inline constexpr const char* kExtractedAtHeader = "snow.extracted_at";

// Never fails on a row ReadRowKey accepted.
kafka::OutRecord BuildRecord(const boost::json::object& row, const RowKey& key,
                             const TableSettings& table, const SourceSettings& source,
                             int64_t extracted_at_ms);

}  // namespace snowcar::source
