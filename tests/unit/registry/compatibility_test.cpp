// SPDX-License-Identifier: Apache-2.0
// The registry double's compatibility rules, one change at a time.
#include "testbed/registry/compatibility.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace snowcar::registry {
namespace {

using ::testing::HasSubstr;

std::string Avro(const char* reader, const char* writer) {
  return AvroIncompatibilities(boost::json::parse(reader), boost::json::parse(writer));
}

std::string Record(const std::string& fields) {
  return R"({"type":"record","name":"R","namespace":"n","fields":[)" + fields + "]}";
}

const std::string kBase = Record(R"({"name":"a","type":"string"},{"name":"b","type":"int"})");

TEST(AvroCompatibilityTest, SameSchemaIsCompatible) {
  EXPECT_EQ(Avro(kBase.c_str(), kBase.c_str()), "");
}

TEST(AvroCompatibilityTest, AddedFieldNeedsADefault) {
  const std::string with_default = Record(
      R"({"name":"a","type":"string"},{"name":"b","type":"int"},
         {"name":"c","type":["null","string"],"default":null})");
  EXPECT_EQ(Avro(with_default.c_str(), kBase.c_str()), "");
  const std::string without = Record(
      R"({"name":"a","type":"string"},{"name":"b","type":"int"},{"name":"c","type":"long"})");
  const std::string problems = Avro(without.c_str(), kBase.c_str());
  EXPECT_THAT(problems, HasSubstr("c: field added without a default"));
}

TEST(AvroCompatibilityTest, RemovedFieldIsFine) {
  const std::string fewer = Record(R"({"name":"a","type":"string"})");
  EXPECT_EQ(Avro(fewer.c_str(), kBase.c_str()), "");
  // ...but the other way round (FORWARD) the old reader misses b's value.
  EXPECT_THAT(Avro(kBase.c_str(), fewer.c_str()), HasSubstr("b: field added without a default"));
}

TEST(AvroCompatibilityTest, TypeChangeIsRefusedAndPromotionAccepted) {
  const std::string as_string =
      Record(R"({"name":"a","type":"string"},{"name":"b","type":"string"})");
  EXPECT_THAT(Avro(as_string.c_str(), kBase.c_str()),
              HasSubstr("b: type changed from int to string"));
  const std::string as_long = Record(R"({"name":"a","type":"string"},{"name":"b","type":"long"})");
  EXPECT_EQ(Avro(as_long.c_str(), kBase.c_str()), "");
  // long -> int narrows.
  EXPECT_THAT(Avro(kBase.c_str(), as_long.c_str()), HasSubstr("type changed from long to int"));
}

TEST(AvroCompatibilityTest, UnionsMatchBranchByBranch) {
  const std::string optional_b =
      Record(R"({"name":"a","type":"string"},{"name":"b","type":["null","int"]})");
  EXPECT_EQ(Avro(optional_b.c_str(), kBase.c_str()), "");  // int -> [null,int]: widening
  EXPECT_THAT(Avro(kBase.c_str(), optional_b.c_str()),
              HasSubstr("b: type changed from null to int"));
}

TEST(AvroCompatibilityTest, EnumSymbolsAndNestedRecords) {
  auto with_enum = [](const char* symbols, const char* extra) {
    return Record(std::string(R"({"name":"s","type":{"type":"enum","name":"S","symbols":)") +
                  symbols + extra + "}}");
  };
  const std::string two = with_enum(R"(["A","B"])", "");
  const std::string one = with_enum(R"(["A"])", "");
  const std::string one_with_default = with_enum(R"(["A"])", R"(,"default":"A")");
  EXPECT_EQ(Avro(two.c_str(), one.c_str()), "");
  EXPECT_THAT(Avro(one.c_str(), two.c_str()), HasSubstr("enum symbol B removed"));
  EXPECT_EQ(Avro(one_with_default.c_str(), two.c_str()), "");

  const std::string nested_old = Record(
      R"({"name":"x","type":{"type":"record","name":"X","fields":[{"name":"y","type":"int"}]}})");
  const std::string nested_new = Record(
      R"({"name":"x","type":{"type":"record","name":"X","fields":[{"name":"y","type":"int"},{"name":"z","type":"int"}]}})");
  EXPECT_THAT(Avro(nested_new.c_str(), nested_old.c_str()), HasSubstr("x.z: field added"));
}

TEST(AvroCompatibilityTest, RenamedRecordIsRefusedUnlessAliased) {
  const char* a = R"({"type":"record","name":"A","fields":[]})";
  const char* b = R"({"type":"record","name":"B","fields":[]})";
  const char* b_alias = R"({"type":"record","name":"B","aliases":["A"],"fields":[]})";
  EXPECT_THAT(Avro(b, a), HasSubstr("name changed from A to B"));
  EXPECT_EQ(Avro(b_alias, a), "");
}

std::string Json(const char* reader, const char* writer) {
  return JsonSchemaIncompatibilities(boost::json::parse(reader), boost::json::parse(writer));
}

TEST(JsonSchemaCompatibilityTest, TheDocumentedRule) {
  const char* base =
      R"({"type":"object","properties":{"a":{"type":"string"},"n":{"type":"integer"}},"required":["a"]})";
  // Adding an optional property, removing one, widening integer -> number: fine.
  EXPECT_EQ(Json(R"({"type":"object","properties":{"a":{"type":"string"},"n":{"type":"number"},
                     "c":{"type":"string"}},"required":["a"]})",
                 base),
            "");
  EXPECT_EQ(
      Json(R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"]})", base), "");
  // A property newly required, a type change, a closed schema dropping a property: refused.
  EXPECT_THAT(
      Json(R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a","n"]})", base),
      HasSubstr("property n is required now"));
  EXPECT_THAT(Json(R"({"type":"object","properties":{"a":{"type":"integer"}}})", base),
              HasSubstr("a: type string is not accepted"));
  EXPECT_THAT(Json(R"({"type":"object","properties":{"a":{"type":"string"}},
                       "additionalProperties":false})",
                   base),
              HasSubstr("n: property removed while additionalProperties is false"));
}

}  // namespace
}  // namespace snowcar::registry
