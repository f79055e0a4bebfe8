// SPDX-License-Identifier: Apache-2.0
// TypedEncoder under value.format=protobuf: the table's fields as a Protobuf message
// (protobuf_record.h) and a row's value in it. The mapping and the field numbers are
// typed_record.h's.
#include "protobuf_record.h"
#include "snowcar/source/typed/typed_record.h"
#include "snowcar/source/typed/typed_value.h"
#include "typed_text.h"

namespace snowcar::source {
namespace {

ProtoKind KindOf(const Column& c, bool display) {
  if (display) return ProtoKind::kString;
  switch (c.type) {
    case LogicalType::kInteger:
      return ProtoKind::kInt64;
    case LogicalType::kBoolean:
      return ProtoKind::kBool;
    case LogicalType::kDecimal:
      return ProtoKind::kDecimal;
    case LogicalType::kDouble:
      return ProtoKind::kDouble;
    case LogicalType::kTimestamp:
      return ProtoKind::kTimestamp;
    case LogicalType::kDate:
      return ProtoKind::kDate;
    case LogicalType::kString:
    case LogicalType::kReference:
      break;
  }
  return ProtoKind::kString;
}

}  // namespace

Status TypedEncoder::MakeProtobuf(const TableSettings& table) {
  std::vector<ProtoFieldSpec> specs;
  specs.reserve(fields_.size());
  for (const Field& f : fields_) {
    // The column's place in types_ is its number's source: columns are only ever appended
    // (a removed one stays, marked), so the same column keeps the same number.
    const auto place = static_cast<int>(f.column - types_.columns.data());
    specs.push_back(
        ProtoFieldSpec{f.name, 2 * place + (f.display ? 2 : 1), KindOf(*f.column, f.display)});
  }
  auto record = ProtobufRecord::Make("servicenow", table.name, specs);
  if (!record.ok()) {
    return Status::InvalidArgument("table " + table.alias + " (" + table.name +
                                   "): " + record.status().message());
  }
  proto_ = std::move(record).value();
  schema_text_ = proto_->schema_text();
  return Status::Ok();
}

Status TypedEncoder::EncodeProtobuf(const boost::json::object& row, std::string_view sys_id,
                                    std::string& out) {
  std::string scratch;
  ProtobufRecord& p = *proto_;
  p.Clear();  // a field left unset below is null
  Locate(row);
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Field& f = fields_[i];
    const boost::json::value* v = members_[i];
    if (v == nullptr) continue;
    if (f.display) {
      const std::string_view d = DisplayText(*v);
      if (!d.empty()) p.SetString(i, d);
      continue;
    }
    Result<TypedValue> t = ParseTypedValue(*f.column, RawText(*v, scratch));
    if (!t.ok()) return BadValue(table_alias_, table_name_, sys_id, *f.column, t.status());
    switch (t->kind) {
      case TypedValue::Kind::kNull:
        break;
      case TypedValue::Kind::kString:
      case TypedValue::Kind::kDecimal:  // the digits as the instance sent them
        p.SetString(i, t->text);
        break;
      case TypedValue::Kind::kInteger:
        p.SetInt64(i, t->integer);
        break;
      case TypedValue::Kind::kTimestamp:
        p.SetTimestampMillis(i, t->integer);
        break;
      case TypedValue::Kind::kBoolean:
        p.SetBool(i, t->boolean);
        break;
      case TypedValue::Kind::kDouble:
        p.SetDouble(i, t->real);
        break;
      case TypedValue::Kind::kDate:
        p.SetInt32(i, static_cast<int32_t>(t->integer));
        break;
    }
  }
  return p.AppendTo(out);
}

}  // namespace snowcar::source
