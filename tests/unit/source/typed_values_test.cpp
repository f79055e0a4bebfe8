// SPDX-License-Identifier: Apache-2.0
// Typed records: the internal_type mapping, value parsing (good and bad values per type),
// sys_dictionary answers, evolution, the state-store encoding, and the encoders' bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "snowcar/source/typed/column_types.h"
#include "snowcar/source/typed/typed_record.h"
#include "snowcar/source/typed/typed_value.h"

namespace snowcar::source {
namespace {

using ::testing::HasSubstr;

TEST(ColumnTypesTest, EveryNamedInternalTypeMapsToItsLogicalType) {
  const std::pair<const char*, LogicalType> cases[] = {
      {"integer", LogicalType::kInteger},       {"longint", LogicalType::kInteger},
      {"boolean", LogicalType::kBoolean},       {"decimal", LogicalType::kDecimal},
      {"currency", LogicalType::kDecimal},      {"price", LogicalType::kDecimal},
      {"float", LogicalType::kDouble},          {"glide_date_time", LogicalType::kTimestamp},
      {"due_date", LogicalType::kTimestamp},    {"glide_date", LogicalType::kDate},
      {"reference", LogicalType::kReference},   {"choice", LogicalType::kString},
      {"string", LogicalType::kString},         {"GUID", LogicalType::kString},
      {"journal", LogicalType::kString},        {"sys_class_name", LogicalType::kString},
      {"glide_duration", LogicalType::kString}, {"", LogicalType::kString},
  };
  for (const auto& [internal, logical] : cases) {
    EXPECT_EQ(LogicalTypeFor(internal), logical) << internal;
  }
}

Column Col(const char* internal_type, int scale = kDefaultDecimalScale) {
  Column c;
  c.name = "f";
  c.internal_type = internal_type;
  c.type = LogicalTypeFor(internal_type);
  c.scale = scale;
  return c;
}

TEST(TypedValueTest, GoodValuesOfEveryType) {
  auto v = ParseTypedValue(Col("integer"), "-42");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->kind, TypedValue::Kind::kInteger);
  EXPECT_EQ(v->integer, -42);
  v = ParseTypedValue(Col("longint"), "-9223372036854775808");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->integer, INT64_MIN);
  v = ParseTypedValue(Col("boolean"), "true");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->boolean);
  v = ParseTypedValue(Col("boolean"), "false");
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->boolean);
  v = ParseTypedValue(Col("decimal", 2), "-12.5");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->kind, TypedValue::Kind::kDecimal);
  EXPECT_TRUE(v->unscaled == -1250);
  v = ParseTypedValue(Col("currency", 2), "1234.500");  // extra zeros are no loss
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->unscaled == 123450);
  // 36 digits before the point at scale 2: beyond 64 bits, within Avro's 38 digits.
  v = ParseTypedValue(Col("price", 2), "123456789012345678901234567890123456");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_TRUE(v->unscaled / 100 == static_cast<Int128>(123456789012345678ULL) *
                                           static_cast<Int128>(1000000000000000000ULL) +
                                       901234567890123456LL);
  v = ParseTypedValue(Col("float"), "3.25");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->real, 3.25);
  v = ParseTypedValue(Col("glide_date_time"), "2026-03-01 12:00:01");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->integer, 1772366401000);
  v = ParseTypedValue(Col("due_date"), "2026-03-01 17:00:00");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->integer, 1772384400000);
  v = ParseTypedValue(Col("glide_date"), "2026-03-01");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->kind, TypedValue::Kind::kDate);
  EXPECT_EQ(v->integer, 20513);
  v = ParseTypedValue(Col("reference"), "0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->text, "0123456789abcdef0123456789abcdef");
  v = ParseTypedValue(Col("choice"), "in progress");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->text, "in progress");
}

TEST(TypedValueTest, EmptyIsNullExceptForStrings) {
  for (const char* t : {"integer", "boolean", "decimal", "float", "glide_date_time", "glide_date",
                        "due_date", "reference"}) {
    auto v = ParseTypedValue(Col(t), "");
    ASSERT_TRUE(v.ok()) << t;
    EXPECT_EQ(v->kind, TypedValue::Kind::kNull) << t;
  }
  auto v = ParseTypedValue(Col("string"), "");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->kind, TypedValue::Kind::kString);
}

TEST(TypedValueTest, BadValuesPerTypeSayWhatIsWrong) {
  const std::tuple<const char*, const char*, const char*> cases[] = {
      {"integer", "12a", "is not an integer"},
      {"integer", "1.5", "is not an integer"},
      {"integer", "99999999999999999999", "is not an integer"},
      {"integer", "9223372036854775808", "within 64 bits"},
      {"longint", "-", "is not an integer"},
      {"boolean", "yes", "is not a boolean"},
      {"decimal", "1.234", "at most 2 digits after the point"},
      {"decimal", "1,5", "is not a decimal number"},
      {"currency", "USD;12.00", "is not a decimal number"},
      {"price", ".5", "is not a decimal number"},
      {"decimal", "1.", "is not a decimal number"},
      {"decimal", "1234567890123456789012345678901234567", "at most 38 digits"},
      {"float", "abc", "is not a number"},
      {"float", "1e999", "is not a number"},
      {"float", "inf", "is not a number"},
      {"glide_date_time", "2026-02-30 10:00:00", "is not a date-time"},
      {"glide_date_time", "03/01/2026 10:00", "is not a date-time"},
      {"due_date", "tomorrow", "is not a date-time"},
      {"glide_date", "2026-13-01", "is not a date"},
      {"glide_date", "2025-02-29", "is not a date"},
      {"glide_date", "2026-03-01 10:00:00", "is not a date"},
  };
  for (const auto& [type, raw, why] : cases) {
    auto v = ParseTypedValue(Col(type), raw);
    ASSERT_FALSE(v.ok()) << type << " " << raw;
    EXPECT_THAT(v.status().message(), HasSubstr(why)) << type << " " << raw;
    EXPECT_THAT(v.status().message(), HasSubstr(std::string("'") + raw)) << type;
  }
}

// A sys_dictionary answer as the Table API gives it (sysparm_exclude_reference_link=true).
constexpr const char* kDictionary = R"([
  {"name":"u_ticket","element":"","internal_type":"collection","max_length":"40","active":"true"},
  {"name":"u_ticket","element":"u_count","internal_type":"integer","max_length":"40","active":"true"},
  {"name":"u_ticket","element":"u_amount","internal_type":"currency","max_length":"20",
   "attributes":"scale=4","active":"true"},
  {"name":"u_ticket","element":"u_caller","internal_type":"reference","reference":"sys_user",
   "max_length":"32","active":"true"},
  {"name":"u_ticket","element":"u_old","internal_type":"string","active":"false"},
  {"name":"u_ticket","element":"sys_id","internal_type":{"value":"GUID"},"max_length":"32"}
])";

TableTypes Parse(const char* json, int64_t at = 1000) {
  auto rows = boost::json::parse(json).as_array();
  auto t = TableTypesFromDictionary("u_ticket", rows, at);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : TableTypes{};
}

TEST(ColumnTypesTest, DictionaryRowsBecomeSortedColumns) {
  TableTypes t = Parse(kDictionary);
  ASSERT_EQ(t.columns.size(), 4u);  // the table row and the inactive column are left out
  EXPECT_EQ(t.columns[0].name, "sys_id");
  EXPECT_EQ(t.columns[0].internal_type, "GUID");
  EXPECT_EQ(t.columns[1].name, "u_amount");
  EXPECT_EQ(t.columns[1].type, LogicalType::kDecimal);
  EXPECT_EQ(t.columns[1].scale, 4);
  EXPECT_EQ(t.columns[2].name, "u_caller");
  EXPECT_EQ(t.columns[2].reference_table, "sys_user");
  EXPECT_EQ(t.columns[3].name, "u_count");
  EXPECT_EQ(t.columns[3].max_length, 40);
  EXPECT_EQ(t.read_at_ms, 1000);
}

TEST(ColumnTypesTest, AColumnNameNoRecordCanCarryIsRefused) {
  auto rows = boost::json::parse(R"([{"element":"u.bad","internal_type":"string"}])").as_array();
  auto t = TableTypesFromDictionary("u_ticket", rows, 0);
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("'u.bad' of u_ticket"));
}

TEST(ColumnTypesTest, EvolutionAppendsAddedColumnsAndKeepsRemovedOnes) {
  TableTypes old = Parse(kDictionary);
  bool changed = true;
  TableTypes same = EvolveTypes(old, Parse(kDictionary, 2000), &changed);
  EXPECT_FALSE(changed);
  EXPECT_EQ(same.read_at_ms, 2000);

  TableTypes fresh = Parse(R"([
    {"element":"sys_id","internal_type":"GUID"},
    {"element":"u_amount","internal_type":"currency","attributes":"scale=4"},
    {"element":"u_count","internal_type":"integer","max_length":"40"},
    {"element":"u_added","internal_type":"glide_date"}])",
                           3000);
  TableTypes evolved = EvolveTypes(old, fresh, &changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(evolved.columns.size(), 5u);
  EXPECT_EQ(evolved.columns[2].name, "u_caller");  // removed: kept in place
  EXPECT_TRUE(evolved.columns[2].removed);
  EXPECT_EQ(evolved.columns[4].name, "u_added");  // added: appended
  EXPECT_EQ(evolved.columns[4].type, LogicalType::kDate);

  // A column that comes back is no longer marked removed.
  TableTypes back = EvolveTypes(evolved, Parse(kDictionary, 4000), &changed);
  EXPECT_TRUE(changed);
  EXPECT_FALSE(back.Find("u_caller")->removed);
  EXPECT_TRUE(back.Find("u_added")->removed);
}

TEST(ColumnTypesTest, StoredTypesReadBackAsWritten) {
  TableTypes t = Parse(kDictionary);
  t.AddUnlisted("u_extra");
  t.columns[1].removed = true;
  auto back = TableTypes::Decode(t.Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->Encode(), t.Encode());
  EXPECT_EQ(back->Find("u_extra")->type, LogicalType::kString);
  EXPECT_FALSE(TableTypes::Decode("{\"v\":2}").ok());
  EXPECT_FALSE(TableTypes::Decode("not json").ok());
}

TableTypes Small() {
  return Parse(R"([
    {"element":"sys_id","internal_type":"GUID"},
    {"element":"n","internal_type":"integer"},
    {"element":"ok","internal_type":"boolean"},
    {"element":"amt","internal_type":"decimal"},
    {"element":"at","internal_type":"glide_date_time"},
    {"element":"day","internal_type":"glide_date"},
    {"element":"who","internal_type":"reference","reference":"sys_user"},
    {"element":"x","internal_type":"float"}])");
}

TableSettings Ticket(DisplayValue dv = DisplayValue::kFalse) {
  TableSettings t;
  t.alias = "tk";
  t.name = "u_ticket";
  t.display_value = dv;
  return t;
}

TEST(TypedEncoderTest, JsonTypedWritesEachValueAsItsType) {
  auto e = TypedEncoder::Make(Small(), Ticket(), RecordFormat::kJsonTyped);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->schema_text(), "");
  auto row = boost::json::parse(R"({"sys_id":"abc","n":"7","ok":"false","amt":"-007.50",
      "at":"2026-03-01 12:00:01","day":"2026-03-01","who":"","x":"0.1"})")
                 .as_object();
  std::string out;
  ASSERT_TRUE((*e)->Encode(row, "abc", out).ok());
  // Columns in their sorted order; the decimal keeps its digits; `who` is null.
  EXPECT_EQ(out,
            R"({"amt":-7.50,"at":"2026-03-01T12:00:01.000Z","day":"2026-03-01","n":7,"ok":false,)"
            R"("sys_id":"abc","who":null,"x":0.1})");
}

TEST(TypedEncoderTest, DisplayValuesAddTheReferencedRowsText) {
  auto e = TypedEncoder::Make(Small(), Ticket(DisplayValue::kAll), RecordFormat::kJsonSchema);
  ASSERT_TRUE(e.ok());
  EXPECT_THAT((*e)->schema_text(), HasSubstr(R"("dv_who":{"type":["null","string"]})"));
  EXPECT_THAT((*e)->schema_text(),
              HasSubstr(R"("at":{"type":["null","string"],"format":"date-time"})"));
  auto row = boost::json::parse(R"({"sys_id":{"value":"abc","display_value":"abc"},
      "who":{"value":"0123","display_value":"Abel Tuter"},
      "n":{"value":"3","display_value":"3"}})")
                 .as_object();
  std::string out;
  ASSERT_TRUE((*e)->Encode(row, "abc", out).ok());
  EXPECT_THAT(out, HasSubstr(R"("n":3)"));
  EXPECT_THAT(out, HasSubstr(R"("who":"0123","dv_who":"Abel Tuter")"));
}

TEST(TypedEncoderTest, ABadValueNamesTableRowFieldAndValue) {
  auto e = TypedEncoder::Make(Small(), Ticket(), RecordFormat::kAvro);
  ASSERT_TRUE(e.ok()) << e.status().message();
  auto row = boost::json::parse(R"({"sys_id":"abc","n":"seven"})").as_object();
  std::string out;
  Status s = (*e)->Encode(row, "abc", out);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("table tk (u_ticket), row abc, field n (integer -> integer)"));
  EXPECT_THAT(s.message(), HasSubstr("'seven' is not an integer"));
  EXPECT_THAT(s.message(), HasSubstr("snow.source.bad.row.behavior=skip"));
}

TEST(TypedEncoderTest, AvroBytesFollowTheSchema) {
  TableTypes t = Parse(R"([{"element":"amt","internal_type":"decimal"},
      {"element":"n","internal_type":"integer"},{"element":"s","internal_type":"string"}])");
  auto e = TypedEncoder::Make(t, Ticket(), RecordFormat::kAvro);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ((*e)->schema_text(),
            R"({"type":"record","name":"u_ticket","namespace":"servicenow","fields":[)"
            R"({"name":"amt","type":["null",{"type":"bytes","logicalType":"decimal",)"
            R"("precision":38,"scale":2}],"default":null},)"
            R"({"name":"n","type":["null","long"],"default":null},)"
            R"({"name":"s","type":["null","string"],"default":null}]})");
  auto row = boost::json::parse(R"({"amt":"-1.28","n":"-1","s":"hi"})").as_object();
  std::string out;
  ASSERT_TRUE((*e)->Encode(row, "x", out).ok());
  // amt: branch 1 (02), 1 byte (02), -128 = 0x80; n: branch 1, zigzag(-1) = 01;
  // s: branch 1, length 2 (04), "hi".
  EXPECT_EQ(out, std::string("\x02\x02\x80\x02\x01\x02\x04hi", 9));
  out.clear();
  auto empty = boost::json::parse(R"({"n":""})").as_object();
  ASSERT_TRUE((*e)->Encode(empty, "x", out).ok());
  EXPECT_EQ(out, std::string("\x00\x00\x00", 3));  // every field null
}

// The encoder remembers where each column sat in the last row and keeps the Avro value
// between rows: rows whose members come in another order, with columns missing or extra
// members, after a refused row, or too big for the first buffer, encode as a fresh encoder
// encodes them.
TEST(TypedEncoderTest, EachRowEncodesAloneWhateverCameBefore) {
  const std::vector<std::string> rows = {
      R"({"sys_id":"a","n":"1","ok":"true","amt":"1.5","at":"2026-03-01 12:00:01","x":"2"})",
      R"({"x":"3","at":"2026-03-02 00:00:00","amt":"2","ok":"false","n":"2","sys_id":"b"})",
      R"({"n":"nine","sys_id":"c"})",
      R"({"u_extra":"1","sys_id":"d","day":"2026-01-31","who":"0123"})",
      R"({"sys_id":"e","n":"5"})",
      R"({"sys_id":null,"n":6,"ok":true,"x":[1]})",
      R"({"sys_id":")" + std::string(100000, 'z') + R"(","n":"6"})",
      R"({"sys_id":"f","n":"7","ok":"1","amt":"-0.01","x":"-1e3","day":"2026-02-28"})"};
  for (RecordFormat format : {RecordFormat::kAvro, RecordFormat::kJsonTyped}) {
    auto reused = TypedEncoder::Make(Small(), Ticket(), format);
    ASSERT_TRUE(reused.ok()) << reused.status().message();
    for (const std::string& text : rows) {
      const boost::json::object row = boost::json::parse(text).as_object();
      auto fresh = TypedEncoder::Make(Small(), Ticket(), format);
      ASSERT_TRUE(fresh.ok());
      std::string expected;
      std::string got;
      const Status want = (*fresh)->Encode(row, "r", expected);
      const Status have = (*reused)->Encode(row, "r", got);
      ASSERT_EQ(want.ok(), have.ok()) << text.substr(0, 80);
      if (want.ok()) {
        EXPECT_EQ(got, expected) << text.substr(0, 80);
      }
    }
  }
}

TEST(TypedEncoderTest, KeysInEachFormat) {
  EXPECT_EQ(*EncodeKey("ab", RecordFormat::kString), "ab");
  EXPECT_EQ(*EncodeKey("ab", RecordFormat::kJson), "\"ab\"");
  EXPECT_EQ(*EncodeKey("ab", RecordFormat::kJsonTyped), "\"ab\"");
  EXPECT_EQ(*EncodeKey("ab", RecordFormat::kJsonSchema), "\"ab\"");
  EXPECT_EQ(*EncodeKey("ab", RecordFormat::kAvro),
            "\x04"
            "ab");
  EXPECT_EQ(KeySchemaText(RecordFormat::kAvro), "\"string\"");
  EXPECT_EQ(KeySchemaText(RecordFormat::kJson), "");
}

}  // namespace
}  // namespace snowcar::source
