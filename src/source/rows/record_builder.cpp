// SPDX-License-Identifier: Apache-2.0
// One row -> one Kafka record. The value is written straight into one string: the common
// case (schemaless, display_value=false or all, no envelope) is a single serialisation of
// the row as parsed, with no intermediate JSON tree.
#include "snowcar/source/rows/record_builder.h"

#include <boost/json/serializer.hpp>
#include <boost/json/value.hpp>

#include "snowcar/common/json_escape.h"
#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

constexpr std::string_view kModCountField = "sys_mod_count";
constexpr std::string_view kDisplayPrefix = "dv_";  // strings mode with display_value=all

// Appends `v` as JSON text, through a stack buffer (no temporary string).
template <typename T>
void AppendJson(std::string& out, const T& v) {
  boost::json::serializer sr;
  sr.reset(&v);
  char buf[4096];
  while (!sr.done()) out.append(sr.read(buf, sizeof(buf)));
}

bool IsCursorField(std::string_view name, const TableSettings& table) {
  return name == table.sys_id_field || name == table.timestamp_field || name == kModCountField;
}

// The stored value of a field: itself, or the "value" member of a {"display_value","value"}
// or {"link","value"} object.
const boost::json::value& RawOf(const boost::json::value& v) {
  if (v.is_object()) {
    if (const boost::json::value* inner = v.get_object().if_contains("value")) return *inner;
  }
  return v;
}

// The display value of a field under sysparm_display_value=all; the value itself otherwise.
const boost::json::value& DisplayOf(const boost::json::value& v) {
  if (v.is_object()) {
    if (const boost::json::value* inner = v.get_object().if_contains("display_value")) {
      return *inner;
    }
  }
  return v;
}

// Strings mode: a scalar as its text; null as ""; anything else (an object the instance
// nested, an array) as its JSON text.
void AppendAsString(std::string& out, const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::string:
      AppendJsonString(out, v.get_string());
      return;
    case boost::json::kind::null:
      out += "\"\"";
      return;
    case boost::json::kind::bool_:
      out += v.get_bool() ? "\"true\"" : "\"false\"";
      return;
    case boost::json::kind::int64:
      out += '"' + std::to_string(v.get_int64()) + '"';
      return;
    case boost::json::kind::uint64:
      out += '"' + std::to_string(v.get_uint64()) + '"';
      return;
    default: {
      std::string text;
      AppendJson(text, v);
      AppendJsonString(out, text);
    }
  }
}

// `{"<name>":<value>,...}` over the fields of `row`, each value written by
// append_value(name, v) (which may add fields of its own after it, comma first).
template <typename AppendValue>
void AppendFields(std::string& out, const boost::json::object& row, AppendValue append_value) {
  out += '{';
  bool first = true;
  for (const auto& [name, v] : row) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, name);
    out += ':';
    append_value(name, v);
  }
  out += '}';
}

// display_value=true, schemaless: what the instance itself sends for `true` (the display
// value; a reference keeps its link unless links are excluded), except the cursor fields,
// which stay raw.
void AppendDisplayRow(std::string& out, const boost::json::object& row,
                      const TableSettings& table) {
  AppendFields(out, row, [&](std::string_view name, const boost::json::value& v) {
    if (IsCursorField(name, table)) {
      AppendJson(out, RawOf(v));
      return;
    }
    const boost::json::value& display = DisplayOf(v);
    const boost::json::value* link = v.is_object() ? v.get_object().if_contains("link") : nullptr;
    if (link != nullptr && !table.exclude_reference_link) {
      out += "{\"display_value\":";
      AppendJson(out, display);
      out += ",\"link\":";
      AppendJson(out, *link);
      out += '}';
    } else {
      AppendJson(out, display);
    }
  });
}

// Strings mode: a flat object of strings. false: the stored value (a reference is its id);
// true: the display value, cursor fields raw; all: the stored value under the field's name
// and the display value under "dv_<field>".
void AppendStringsRow(std::string& out, const boost::json::object& row,
                      const TableSettings& table) {
  AppendFields(out, row, [&](std::string_view name, const boost::json::value& v) {
    if (table.display_value == DisplayValue::kTrue && !IsCursorField(name, table)) {
      AppendAsString(out, DisplayOf(v));
      return;
    }
    AppendAsString(out, RawOf(v));
    if (table.display_value == DisplayValue::kAll) {
      out += ',';
      std::string dv_name(kDisplayPrefix);
      dv_name.append(name.data(), name.size());
      AppendJsonString(out, dv_name);
      out += ':';
      AppendAsString(out, DisplayOf(v));
    }
  });
}

void AppendRow(std::string& out, const boost::json::object& row, const TableSettings& table,
               const SourceSettings& source) {
  if (source.schema_mode == SchemaMode::kStrings) {
    AppendStringsRow(out, row, table);
  } else if (table.display_value == DisplayValue::kTrue) {
    AppendDisplayRow(out, row, table);
  } else {
    AppendJson(out, row);
  }
}

}  // namespace

kafka::OutRecord BuildRecord(const boost::json::object& row, const RowKey& key,
                             const TableSettings& table, const SourceSettings& source,
                             int64_t extracted_at_ms) {
  kafka::OutRecord record;
  record.topic = table.topic;
  record.key = std::string(key.sys_id);
  record.timestamp_ms = key.ts * 1000;
  record.headers.reserve(4);
  record.headers.push_back({kOperationHeader, std::string("UPSERT")});
  record.headers.push_back({kTableHeader, table.name});
  record.headers.push_back({kInstanceHeader, source.instance});
  record.headers.push_back({kExtractedAtHeader, FormatIso8601Millis(extracted_at_ms)});

  std::string value;
  if (!source.emit_envelope) {
    AppendRow(value, row, table, source);
  } else {
    value.reserve(256);
    value += "{\"before\":null,\"after\":";
    AppendRow(value, row, table, source);
    value += ",\"source\":{\"connector\":\"snowcar\",\"instance\":";
    AppendJsonString(value, source.instance);
    value += ",\"table\":";
    AppendJsonString(value, table.name);
    value += ",\"alias\":";
    AppendJsonString(value, table.alias);
    value += ",\"sys_id\":";
    AppendJsonString(value, key.sys_id);
    value += ",\"sys_mod_count\":" + std::to_string(key.mod_count);
    value += ",\"ts_ms\":" + std::to_string(key.ts * 1000);
    value += "},\"op\":\"u\",\"ts_ms\":" + std::to_string(extracted_at_ms) + "}";
  }
  // A queued record lives until its page is produced; growth by doubling can leave almost
  // half its buffer empty.
  if (value.capacity() - value.size() > value.size() / 8) value.shrink_to_fit();
  record.value = std::move(value);
  return record;
}

}  // namespace snowcar::source
