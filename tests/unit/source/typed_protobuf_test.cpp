// SPDX-License-Identifier: Apache-2.0
// value.format=protobuf in the source: the .proto text made from the column types, the field
// numbers kept as columns come and go, the bytes (read back with libprotobuf through the
// registry client's decoder), and the key message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "snowcar/protobuf/proto_schema.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/source/typed/column_types.h"
#include "snowcar/source/typed/typed_record.h"
#include "testbed/registry/compatibility.h"

namespace snowcar::source {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TableTypes ProtoTypes(const char* rows) {
  auto t = TableTypesFromDictionary("u_ticket", boost::json::parse(rows).as_array(), 0);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return *t;
}

constexpr const char* kProtoRows = R"([{"element":"amt","internal_type":"decimal"},
    {"element":"at","internal_type":"glide_date_time"},
    {"element":"day","internal_type":"glide_date"},{"element":"n","internal_type":"integer"},
    {"element":"ok","internal_type":"boolean"},{"element":"sys_id","internal_type":"GUID"},
    {"element":"who","internal_type":"reference","reference":"sys_user"},
    {"element":"x","internal_type":"float"}])";

TableSettings ProtoTicket(DisplayValue dv = DisplayValue::kFalse) {
  TableSettings t;
  t.alias = "tk";
  t.name = "u_ticket";
  t.display_value = dv;
  return t;
}

// The payload as the sink's decoder renders it: the message-index byte, then the bytes.
std::string Decoded(const TypedEncoder& e, const std::string& bytes) {
  auto json = schema_registry::ProtobufSchemaToJson(e.schema_text(), std::string(1, '\0') + bytes);
  EXPECT_TRUE(json.ok()) << json.status().message();
  return json.ok() ? *json : "";
}

TEST(TypedProtobufTest, TheSchemaIsProto3WithAnOptionalFieldPerColumn) {
  auto e = TypedEncoder::Make(ProtoTypes(kProtoRows), ProtoTicket(DisplayValue::kTrue),
                              RecordFormat::kProtobuf);
  ASSERT_TRUE(e.ok()) << e.status().message();
  const std::string& s = (*e)->schema_text();
  EXPECT_THAT(s, HasSubstr("syntax = \"proto3\";"));
  EXPECT_THAT(s, HasSubstr("import \"google/protobuf/timestamp.proto\";"));
  EXPECT_THAT(s, HasSubstr("package servicenow;"));
  EXPECT_THAT(s, HasSubstr("message u_ticket {"));
  // Column i (sorted on the first read) is number 2i+1, its display text 2i+2.
  EXPECT_THAT(s, HasSubstr("optional string amt = 1;"));
  EXPECT_THAT(s, HasSubstr(".google.protobuf.Timestamp at = 3;"));
  EXPECT_THAT(s, HasSubstr("optional int32 day = 5;"));
  EXPECT_THAT(s, HasSubstr("optional int64 n = 7;"));
  EXPECT_THAT(s, HasSubstr("optional bool ok = 9;"));
  EXPECT_THAT(s, HasSubstr("optional string sys_id = 11;"));
  EXPECT_THAT(s, HasSubstr("optional string who = 13;"));
  EXPECT_THAT(s, HasSubstr("optional string dv_who = 14;"));
  EXPECT_THAT(s, HasSubstr("optional double x = 15;"));
  EXPECT_EQ(RecordFullName(ProtoTicket(), RecordFormat::kProtobuf), "servicenow.u_ticket");
}

TEST(TypedProtobufTest, ValuesReadBackAsTheirTypesAndEmptyOnesAreAbsent) {
  auto e = TypedEncoder::Make(ProtoTypes(kProtoRows), ProtoTicket(DisplayValue::kAll),
                              RecordFormat::kProtobuf);
  ASSERT_TRUE(e.ok()) << e.status().message();
  auto row = boost::json::parse(R"({"sys_id":"abc","n":"-7","ok":"false","amt":"-007.50",
      "at":"1969-12-31 23:59:59","day":"2026-03-01","x":"0.1",
      "who":{"value":"0123","display_value":"Abel Tuter"}})")
                 .as_object();
  std::string out;
  ASSERT_TRUE((*e)->Encode(row, "abc", out).ok());
  // The decimal keeps the instance's digits; a time before the epoch keeps its second;
  // false is present (explicit presence), not dropped as a default.
  EXPECT_EQ(Decoded(**e, out),
            R"({"amt":"-007.50","at":"1969-12-31 23:59:59","day":20513,"n":-7,"ok":false,)"
            R"("sys_id":"abc","who":"0123","dv_who":"Abel Tuter","x":0.1})");
  out.clear();
  auto empty = boost::json::parse(R"({"sys_id":"abc","n":"","at":"","who":""})").as_object();
  ASSERT_TRUE((*e)->Encode(empty, "abc", out).ok());
  EXPECT_EQ(Decoded(**e, out),
            R"({"amt":null,"at":null,"day":null,"n":null,"ok":null,"sys_id":"abc",)"
            R"("who":null,"dv_who":null,"x":null})");
  // The message is reused between rows: nothing of the first row is left in the second.
  EXPECT_EQ(out, std::string("\x5a\x03"
                             "abc",
                             5));
  auto bad = boost::json::parse(R"({"n":"seven"})").as_object();
  Status s = (*e)->Encode(bad, "abc", out);
  EXPECT_THAT(s.message(), HasSubstr("table tk (u_ticket), row abc, field n"));
}

// Columns b (integer) and d (string).
TableTypes BAndD() {
  return ProtoTypes(R"([{"element":"b","internal_type":"integer"},
      {"element":"d","internal_type":"string"}])");
}
// `v1` evolved as d leaves the dictionary and a (string) and c (boolean) arrive.
TableTypes BAndDThenABAndC(const TableTypes& v1, bool* changed) {
  return EvolveTypes(v1, ProtoTypes(R"([{"element":"a","internal_type":"string"},
      {"element":"b","internal_type":"integer"},{"element":"c","internal_type":"boolean"}])"),
                     changed);
}

TEST(TypedProtobufTest, FieldNumbersStayWithTheirColumnsAsColumnsComeAndGo) {
  const TableTypes v1 = BAndD();
  // d leaves the dictionary, a and c arrive: they are appended, d is kept (removed).
  bool changed = false;
  const TableTypes v2 = BAndDThenABAndC(v1, &changed);
  ASSERT_TRUE(changed);
  auto e1 = TypedEncoder::Make(v1, ProtoTicket(), RecordFormat::kProtobuf);
  auto e2 = TypedEncoder::Make(v2, ProtoTicket(), RecordFormat::kProtobuf);
  ASSERT_TRUE(e1.ok() && e2.ok());
  EXPECT_THAT((*e1)->schema_text(), HasSubstr("optional int64 b = 1;"));
  EXPECT_THAT((*e1)->schema_text(), HasSubstr("optional string d = 3;"));
  EXPECT_THAT((*e2)->schema_text(), HasSubstr("optional int64 b = 1;"));
  EXPECT_THAT((*e2)->schema_text(), HasSubstr("optional string d = 3;"));
  EXPECT_THAT((*e2)->schema_text(), HasSubstr("optional string a = 5;"));
  EXPECT_THAT((*e2)->schema_text(), HasSubstr("optional bool c = 7;"));
  // Selecting fields leaves the numbers of the others as they are.
  TableSettings some = ProtoTicket();
  some.fields = {"c"};
  auto e3 = TypedEncoder::Make(v2, some, RecordFormat::kProtobuf);
  ASSERT_TRUE(e3.ok());
  EXPECT_THAT((*e3)->schema_text(), HasSubstr("optional bool c = 7;"));
  EXPECT_THAT((*e3)->schema_text(), Not(HasSubstr(" b = ")));
}

// The schema versions a table's evolution registers, checked by the registry double's
// BACKWARD rule (new reads old): columns coming and going pass, a changed type does not.
std::string ProtoBackward(const TypedEncoder& next, const TypedEncoder& previous) {
  auto reader = protobuf::ProtoSchema::Parse(next.schema_text());
  auto writer = protobuf::ProtoSchema::Parse(previous.schema_text());
  EXPECT_TRUE(reader.ok() && writer.ok());
  return registry::ProtobufIncompatibilities(**reader, **writer);
}

TEST(TypedProtobufTest, EvolvedSchemasAreBackwardCompatibleUntilATypeChanges) {
  const TableTypes v1 = BAndD();
  bool changed = false;
  const TableTypes v2 = BAndDThenABAndC(v1, &changed);
  const TableTypes v3 = EvolveTypes(v2, ProtoTypes(R"([{"element":"a","internal_type":"string"},
      {"element":"b","internal_type":"glide_date_time"},{"element":"c","internal_type":"boolean"}])"),
                                    &changed);
  auto e1 = TypedEncoder::Make(v1, ProtoTicket(), RecordFormat::kProtobuf);
  auto e2 = TypedEncoder::Make(v2, ProtoTicket(), RecordFormat::kProtobuf);
  auto e3 = TypedEncoder::Make(v3, ProtoTicket(), RecordFormat::kProtobuf);
  ASSERT_TRUE(e1.ok() && e2.ok() && e3.ok());
  EXPECT_EQ(ProtoBackward(**e2, **e1), "");
  EXPECT_THAT(ProtoBackward(**e3, **e2),
              HasSubstr("field number 1 (b) changed type from int64 to google.protobuf.Timestamp"));
}

TEST(TypedProtobufTest, TheKeyIsARecordKeyMessage) {
  auto k = EncodeKey("ab", RecordFormat::kProtobuf);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(*k, std::string("\x0a\x02"
                            "ab",
                            4));  // field 1, length 2
  const std::string schema = KeySchemaText(RecordFormat::kProtobuf);
  EXPECT_THAT(schema, HasSubstr("message RecordKey {"));
  EXPECT_THAT(schema, HasSubstr("optional string sys_id = 1;"));
  auto json = schema_registry::ProtobufSchemaToJson(schema, std::string(1, '\0') + *k);
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_EQ(*json, R"({"sys_id":"ab"})");
}

}  // namespace
}  // namespace snowcar::source
