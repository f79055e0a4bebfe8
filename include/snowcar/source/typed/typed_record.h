// SPDX-License-Identifier: Apache-2.0
// Typed record values and keys (snow.source.schema.mode=typed): one encoder per table and
// schema version turns a row into the bytes of value.format, and says which schema those
// bytes follow.
//
// The record's fields are the table's columns (column_types.h) in their stable order,
// limited to `.fields` when the table names fields, plus, for every reference column when
// display values are asked for (`.display.value` true or all), a string field
// `dv_<column>` holding the referenced row's display text. Every field is optional (null
// when the row lacks it or the value is empty), so a schema with a column more or less stays
// readable by consumers of the previous one.
//
//   format        value bytes                                   schema (schema_text)
//   json_typed    {"col":value,...} typed JSON                  none
//   json_schema   the same JSON                                 JSON Schema (draft-07)
//   avro          Avro binary through avro-c                    Avro record schema
//   protobuf      Protobuf binary through libprotobuf           .proto text (proto3), the
//                                                               message servicenow.<table>
//
//   logical type   JSON value                   Avro type (each in a union with null, first)
//   string         string                       string
//   integer        number                       long
//   boolean        true / false                 boolean
//   decimal        number, the instance's       bytes, logicalType decimal, precision 38,
//                  digits (no double between)   the column's scale
//   double         number (shortest round trip) double
//   timestamp      "YYYY-MM-DDTHH:MM:SS.mmmZ"   long, logicalType timestamp-millis
//   date           "YYYY-MM-DD"                 int, logicalType date
//   reference      the sys_id                   string
//
// Protobuf (protobuf_record.h): every field `optional` (absent = null); string, integer
// (int64), boolean, double and reference as Avro; decimal an `optional string` of the
// instance's digits (Protobuf has no decimal, and Confluent's Decimal message would need a
// schema reference); timestamp a google.protobuf.Timestamp; date an `optional int32` of days.
// Field numbers come from the column's place in TableTypes, which never changes and never
// drops a column: column i is number 2i+1 and its display text dv_<column> 2i+2, so a number
// is never given to another field, whatever `.fields` or `.display.value` select.
//
// Avro names: record `<table>` in namespace `servicenow` (a field name must match
// [A-Za-z_][A-Za-z0-9_]*, which TableTypesFromDictionary checks).
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/source/typed/column_types.h"

namespace snowcar::source {

class AvroDatum;
class ProtobufRecord;

class TypedEncoder {
 public:
  // An encoder for `types` as `table` reads them. InvalidArgument when avro-c or
  // libprotobuf refuses the schema. `format` must be json_typed, avro, json_schema or protobuf.
  static Result<std::unique_ptr<TypedEncoder>> Make(const TableTypes& types,
                                                    const TableSettings& table,
                                                    RecordFormat format);
  ~TypedEncoder();

  // The schema the values follow: Avro schema JSON (avro), JSON Schema (json_schema), "" for
  // json_typed.
  const std::string& schema_text() const { return schema_text_; }
  RecordFormat format() const { return format_; }

  // Appends `row`'s value to `out`. A value that does not parse as its column's type is
  // InvalidArgument naming the table, the row's sys_id, the field, its value and the type,
  // and how to skip such rows. Not thread-safe (avro reuses one value).
  Status Encode(const boost::json::object& row, std::string_view sys_id, std::string& out);

 private:
  struct Field {
    const Column* column;  // points into types_
    std::string name;      // the column's name, or dv_<column> for a display text
    bool display = false;  // the display text of a reference column
  };
  // The fields one column fills, [first, end): its value, and a reference column's display
  // text after it.
  struct FieldRange {
    int first = 0;
    int end = 0;  // first == end: a member that fills no field
  };
  // What the member at one index of the last row was: its key and the fields it fills.
  struct Slot {
    std::string key;
    FieldRange fields;
  };
  TypedEncoder() = default;
  // Points members_[i] at the row's member for fields_[i] (nullptr when the row lacks it).
  // Rows of a page come with their members in the same order, so each member is matched
  // against the key the same index held in the last row: one comparison per member instead
  // of a hash lookup per field, and absent columns cost nothing.
  void Locate(const boost::json::object& row);
  Status EncodeJson(const boost::json::object& row, std::string_view sys_id, std::string& out);
  Status EncodeAvro(const boost::json::object& row, std::string_view sys_id, std::string& out);
  // typed_protobuf.cpp: the message of the fields, and a row's value in it.
  Status MakeProtobuf(const TableSettings& table);
  Status EncodeProtobuf(const boost::json::object& row, std::string_view sys_id, std::string& out);

  TableTypes types_;
  std::string table_name_;
  std::string table_alias_;
  RecordFormat format_ = RecordFormat::kJsonTyped;
  std::vector<Field> fields_;
  std::unordered_map<std::string, FieldRange> column_fields_;  // by column name
  std::vector<Slot> slots_;
  std::vector<const boost::json::value*> members_;  // by field, for the row being encoded
  std::string schema_text_;
  std::unique_ptr<AvroDatum> avro_;
  std::unique_ptr<ProtobufRecord> proto_;
};

// The key (a sys_id) in `format`: string the sys_id's bytes (the default), avro an Avro
// string, json / json_typed / json_schema a JSON string.
Result<std::string> EncodeKey(std::string_view sys_id, RecordFormat format);
// The schema of such keys ("" for string / json / json_typed): Avro `"string"` or JSON Schema
// `{"type":"string"}`.
std::string KeySchemaText(RecordFormat format);

}  // namespace snowcar::source

namespace snowcar::source {

// Registers a key (`is_key`) or value schema of `topic` with the schema registry, under
// the subject its strategy names (`<topic>-value` / `<topic>-key` by default; the record
// strategies use `record_name`, the schema's full name), and returns its id; the same schema
// again returns the same id. Set by the source when schema.registry.url is configured;
// records are then framed in Confluent's wire format (schema_registry/wire_format.h). An
// error (the registry refused the schema, or cannot be reached) pauses the table with the
// registry's answer; no row is dropped.
using SchemaRegistrar =
    std::function<Result<int32_t>(const std::string& topic, bool is_key, RecordFormat format,
                                  const std::string& record_name, const std::string& schema)>;

// The full name a record strategy registers a value schema under: `servicenow.<table>` for
// Avro, `<table>` (the JSON Schema's title) for json_schema.
std::string RecordFullName(const TableSettings& table, RecordFormat format);

}  // namespace snowcar::source
