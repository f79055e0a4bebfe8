// SPDX-License-Identifier: Apache-2.0
// TypedEncoder: the field list and schema of a table's typed records, and a row's value in
// json_typed / json_schema (typed JSON) or avro (avro-c).
#include "snowcar/source/typed/typed_record.h"

#include <boost/json/value.hpp>
#include <charconv>

#include "avro_datum.h"
#include "protobuf_record.h"
#include "snowcar/common/json_escape.h"
#include "snowcar/common/time.h"
#include "snowcar/source/typed/typed_value.h"
#include "typed_text.h"

namespace snowcar::source {
namespace {

constexpr std::string_view kDisplayPrefix = "dv_";

}  // namespace

// The stored value of a field as text: a string as is, {"value": ...} (display_value=all, or
// a reference with its link) by its value, a JSON number or boolean as its text, null as "".
// `scratch` holds the text of a number.
std::string_view RawText(const boost::json::value& v, std::string& scratch) {
  const boost::json::value* cur = &v;
  if (cur->is_object()) {
    cur = cur->get_object().if_contains("value");
    if (cur == nullptr) return {};
  }
  switch (cur->kind()) {
    case boost::json::kind::string:
      return cur->get_string();
    case boost::json::kind::int64:
      scratch = std::to_string(cur->get_int64());
      return scratch;
    case boost::json::kind::uint64:
      scratch = std::to_string(cur->get_uint64());
      return scratch;
    case boost::json::kind::double_: {
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof(buf), cur->get_double());
      scratch.assign(buf, r.ptr);
      return scratch;
    }
    case boost::json::kind::bool_:
      return cur->get_bool() ? "true" : "false";
    default:
      return {};
  }
}

// The display text of a field under display_value=true/all ({"display_value": ...}).
std::string_view DisplayText(const boost::json::value& v) {
  if (!v.is_object()) return {};
  const boost::json::value* d = v.get_object().if_contains("display_value");
  if (d == nullptr || !d->is_string()) return {};
  return d->get_string();
}

namespace {

// "-007.50" -> "-7.50": a JSON number has no leading zeros.
void AppendDecimalJson(std::string& out, std::string_view text) {
  if (!text.empty() && text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  while (text.size() > 1 && text[0] == '0' && text[1] != '.') text.remove_prefix(1);
  out.append(text);
}

// The unscaled value as Avro's decimal bytes: big-endian two's complement, fewest bytes.
std::string DecimalBytes(Int128 v) {
  unsigned char bytes[16];
  UInt128 u = static_cast<UInt128>(v);
  for (int i = 15; i >= 0; --i) {
    bytes[i] = static_cast<unsigned char>(u & 0xff);
    u >>= 8;
  }
  int start = 0;
  // Drop a leading byte while the next one carries the same sign.
  while (start < 15 && ((bytes[start] == 0x00 && (bytes[start + 1] & 0x80) == 0) ||
                        (bytes[start] == 0xff && (bytes[start + 1] & 0x80) != 0))) {
    ++start;
  }
  return std::string(reinterpret_cast<const char*>(bytes + start), 16 - start);
}

std::string AvroTypeOf(const Column& c, bool display) {
  if (display) return "\"string\"";
  switch (c.type) {
    case LogicalType::kInteger:
      return "\"long\"";
    case LogicalType::kBoolean:
      return "\"boolean\"";
    case LogicalType::kDecimal:
      return "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":" +
             std::to_string(kDecimalPrecision) + ",\"scale\":" + std::to_string(c.scale) + "}";
    case LogicalType::kDouble:
      return "\"double\"";
    case LogicalType::kTimestamp:
      return "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}";
    case LogicalType::kDate:
      return "{\"type\":\"int\",\"logicalType\":\"date\"}";
    case LogicalType::kString:
    case LogicalType::kReference:
      return "\"string\"";
  }
  return "\"string\"";
}

std::string JsonSchemaTypeOf(const Column& c, bool display) {
  if (display) return "{\"type\":[\"null\",\"string\"]}";
  switch (c.type) {
    case LogicalType::kInteger:
      return "{\"type\":[\"null\",\"integer\"]}";
    case LogicalType::kBoolean:
      return "{\"type\":[\"null\",\"boolean\"]}";
    case LogicalType::kDecimal:
    case LogicalType::kDouble:
      return "{\"type\":[\"null\",\"number\"]}";
    case LogicalType::kTimestamp:
      return "{\"type\":[\"null\",\"string\"],\"format\":\"date-time\"}";
    case LogicalType::kDate:
      return "{\"type\":[\"null\",\"string\"],\"format\":\"date\"}";
    case LogicalType::kString:
    case LogicalType::kReference:
      return "{\"type\":[\"null\",\"string\"]}";
  }
  return "{\"type\":[\"null\",\"string\"]}";
}

}  // namespace

TypedEncoder::~TypedEncoder() = default;

Result<std::unique_ptr<TypedEncoder>> TypedEncoder::Make(const TableTypes& types,
                                                         const TableSettings& table,
                                                         RecordFormat format) {
  std::unique_ptr<TypedEncoder> e(new TypedEncoder());
  e->types_ = types;
  e->table_name_ = table.name;
  e->table_alias_ = table.alias;
  e->format_ = format;
  const bool with_display = table.display_value != DisplayValue::kFalse;
  for (const Column& c : e->types_.columns) {
    if (!table.fields.empty() &&
        std::find(table.fields.begin(), table.fields.end(), c.name) == table.fields.end()) {
      continue;
    }
    e->fields_.push_back(Field{&c, c.name, false});
    if (with_display && c.type == LogicalType::kReference) {
      e->fields_.push_back(Field{&c, std::string(kDisplayPrefix) + c.name, true});
    }
  }
  for (size_t i = 0; i < e->fields_.size(); ++i) {
    auto [it, fresh] = e->column_fields_.try_emplace(e->fields_[i].column->name,
                                                     FieldRange{static_cast<int>(i), 0});
    it->second.end = static_cast<int>(i) + 1;  // a column's fields are adjacent
  }
  e->members_.resize(e->fields_.size());
  if (format == RecordFormat::kAvro) {
    std::string& s = e->schema_text_;
    s = "{\"type\":\"record\",\"name\":";
    AppendJsonString(s, table.name);
    s += ",\"namespace\":\"servicenow\",\"fields\":[";
    for (size_t i = 0; i < e->fields_.size(); ++i) {
      const Field& f = e->fields_[i];
      if (i > 0) s += ',';
      s += "{\"name\":";
      AppendJsonString(s, f.name);
      s += ",\"type\":[\"null\"," + AvroTypeOf(*f.column, f.display) + "],\"default\":null}";
    }
    s += "]}";
    auto datum = AvroDatum::Make(s);
    if (!datum.ok()) {
      return Status::InvalidArgument("table " + table.alias + " (" + table.name +
                                     "): " + datum.status().message());
    }
    e->avro_ = std::move(datum).value();
  } else if (format == RecordFormat::kProtobuf) {
    SNOWCAR_RETURN_IF_ERROR(e->MakeProtobuf(table));
  } else if (format == RecordFormat::kJsonSchema) {
    std::string& s = e->schema_text_;
    s = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"title\":";
    AppendJsonString(s, table.name);
    s += ",\"type\":\"object\",\"properties\":{";
    for (size_t i = 0; i < e->fields_.size(); ++i) {
      const Field& f = e->fields_[i];
      if (i > 0) s += ',';
      AppendJsonString(s, f.name);
      s += ':' + JsonSchemaTypeOf(*f.column, f.display);
    }
    s += "}}";
  }
  return e;
}

void TypedEncoder::Locate(const boost::json::object& row) {
  std::fill(members_.begin(), members_.end(), nullptr);
  if (slots_.size() < row.size()) slots_.resize(row.size());
  size_t i = 0;
  for (const boost::json::key_value_pair& kv : row) {
    Slot& slot = slots_[i++];
    if (slot.key != kv.key()) {
      slot.key = kv.key();
      auto it = column_fields_.find(slot.key);
      slot.fields = it == column_fields_.end() ? FieldRange{} : it->second;
    }
    for (int f = slot.fields.first; f < slot.fields.end; ++f) {
      members_[static_cast<size_t>(f)] = &kv.value();
    }
  }
}

Status TypedEncoder::Encode(const boost::json::object& row, std::string_view sys_id,
                            std::string& out) {
  if (format_ == RecordFormat::kProtobuf) return EncodeProtobuf(row, sys_id, out);
  return format_ == RecordFormat::kAvro ? EncodeAvro(row, sys_id, out)
                                        : EncodeJson(row, sys_id, out);
}

Status BadValue(std::string_view alias, std::string_view table, std::string_view sys_id,
                const Column& c, const Status& why) {
  std::string m = "table " + std::string(alias) + " (" + std::string(table) + "), row " +
                  std::string(sys_id) + ", field " + c.name + " (" + c.internal_type + " -> " +
                  std::string(LogicalTypeName(c.type)) + "): " + why.message() +
                  "; fix the value, or set snow.source.bad.row.behavior=skip to skip such rows";
  return Status::InvalidArgument(m);
}

Status TypedEncoder::EncodeJson(const boost::json::object& row, std::string_view sys_id,
                                std::string& out) {
  std::string scratch;
  out += '{';
  bool first = true;
  Locate(row);
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Field& f = fields_[i];
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, f.name);
    out += ':';
    const boost::json::value* v = members_[i];
    if (v == nullptr) {
      out += "null";
      continue;
    }
    if (f.display) {
      const std::string_view d = DisplayText(*v);
      if (d.empty()) {
        out += "null";
      } else {
        AppendJsonString(out, d);
      }
      continue;
    }
    Result<TypedValue> t = ParseTypedValue(*f.column, RawText(*v, scratch));
    if (!t.ok()) return BadValue(table_alias_, table_name_, sys_id, *f.column, t.status());
    switch (t->kind) {
      case TypedValue::Kind::kNull:
        out += "null";
        break;
      case TypedValue::Kind::kString:
        AppendJsonString(out, t->text);
        break;
      case TypedValue::Kind::kInteger:
        out += std::to_string(t->integer);
        break;
      case TypedValue::Kind::kBoolean:
        out += t->boolean ? "true" : "false";
        break;
      case TypedValue::Kind::kDecimal:
        AppendDecimalJson(out, t->text);
        break;
      case TypedValue::Kind::kDouble: {
        char buf[32];
        auto r = std::to_chars(buf, buf + sizeof(buf), t->real);
        out.append(buf, r.ptr);
        break;
      }
      case TypedValue::Kind::kTimestamp:
        out += '"';
        out += FormatIso8601Millis(t->integer);
        out += '"';
        break;
      case TypedValue::Kind::kDate:
        out += '"';
        out += FormatSnowTimestamp(t->integer * 86400).substr(0, 10);
        out += '"';
        break;
    }
  }
  out += '}';
  return Status::Ok();
}

Status TypedEncoder::EncodeAvro(const boost::json::object& row, std::string_view sys_id,
                                std::string& out) {
  std::string scratch;
  AvroDatum& a = *avro_;
  // Every field below is set, null or not: the datum keeps no value of the previous row.
  Locate(row);
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Field& f = fields_[i];
    const boost::json::value* v = members_[i];
    if (v == nullptr) {
      a.SetNull(i);
      continue;
    }
    if (f.display) {
      const std::string_view d = DisplayText(*v);
      if (d.empty()) {
        a.SetNull(i);
      } else {
        a.SetTerminatedString(i, d);  // a whole boost::json::string
      }
      continue;
    }
    Result<TypedValue> t = ParseTypedValue(*f.column, RawText(*v, scratch));
    if (!t.ok()) return BadValue(table_alias_, table_name_, sys_id, *f.column, t.status());
    switch (t->kind) {
      case TypedValue::Kind::kNull:
        a.SetNull(i);
        break;
      case TypedValue::Kind::kString:
        // A string column's text is RawText's whole: a boost::json::string, `scratch` or a
        // literal, each NUL-terminated.
        a.SetTerminatedString(i, t->text);
        break;
      case TypedValue::Kind::kInteger:
      case TypedValue::Kind::kTimestamp:
        a.SetLong(i, t->integer);
        break;
      case TypedValue::Kind::kBoolean:
        a.SetBoolean(i, t->boolean);
        break;
      case TypedValue::Kind::kDecimal:
        a.SetBytes(i, DecimalBytes(t->unscaled));
        break;
      case TypedValue::Kind::kDouble:
        a.SetDouble(i, t->real);
        break;
      case TypedValue::Kind::kDate:
        a.SetInt(i, static_cast<int32_t>(t->integer));
        break;
    }
  }
  return a.AppendTo(out);
}

Result<std::string> EncodeKey(std::string_view sys_id, RecordFormat format) {
  switch (format) {
    case RecordFormat::kAvro:
      return AvroString(sys_id);
    case RecordFormat::kProtobuf:
      return ProtobufKey(sys_id);
    case RecordFormat::kJson:
    case RecordFormat::kJsonTyped:
    case RecordFormat::kJsonSchema: {
      std::string out;
      AppendJsonString(out, sys_id);
      return out;
    }
    case RecordFormat::kString:
      break;
  }
  return std::string(sys_id);
}

std::string RecordFullName(const TableSettings& table, RecordFormat format) {
  return format == RecordFormat::kAvro || format == RecordFormat::kProtobuf
             ? "servicenow." + table.name
             : table.name;
}

std::string KeySchemaText(RecordFormat format) {
  if (format == RecordFormat::kAvro) return "\"string\"";
  if (format == RecordFormat::kJsonSchema) return "{\"type\":\"string\"}";
  if (format == RecordFormat::kProtobuf) return ProtobufKeySchemaText();
  return "";
}

}  // namespace snowcar::source
