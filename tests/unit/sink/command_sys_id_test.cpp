// SPDX-License-Identifier: Apache-2.0
// sys_id: each source (plain key, JSON key field, value field, header), normalisation, and the
// precedence rules when sources disagree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "command_test_util.h"

namespace snowcar::sink {
namespace {

using ::testing::HasSubstr;
using testing::kId1;
using testing::kId2;
using testing::Record;
using testing::Settings;

std::string SysIdBody(const std::string& sys_id_field = "") {
  if (sys_id_field.empty()) return R"({"short_description":"x"})";
  return R"({"short_description":"x","sys_id":")" + sys_id_field + R"("})";
}

TEST(SysIdTest, FromAPlainKeyTrimmedAndLowerCased) {
  auto c = DecodeCommand(Record(SysIdBody(), "  0123456789ABCDEF0123456789abcdef\n"), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, kId1);
  EXPECT_EQ(c->operation, Operation::kPatch);
}

TEST(SysIdTest, FromAJsonStringKey) {
  auto c = DecodeCommand(Record(SysIdBody(), "\"" + std::string(kId1) + "\""), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, kId1);
}

TEST(SysIdTest, FromAFieldOfAJsonKey) {
  SinkSettings s = Settings();
  s.sys_id_key_field = "id";
  auto c =
      DecodeCommand(Record(SysIdBody(), R"({"id":")" + std::string(kId2) + R"(","other":1})"), s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, kId2);
  // A JSON key without the field (or with null) gives no sys_id: a create.
  c = DecodeCommand(Record(SysIdBody(), R"({"other":1})"), s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, "");
  EXPECT_EQ(c->operation, Operation::kCreate);
  c = DecodeCommand(Record(SysIdBody(), R"({"id":null})"), s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->sys_id, "");
}

TEST(SysIdTest, JsonKeyFieldThatIsNotAString) {
  for (const char* key :
       {R"({"sys_id":42})", R"({"sys_id":{"x":1}})", R"({"sys_id":[1]})", R"({"sys_id":true})"}) {
    auto c = DecodeCommand(Record(SysIdBody(), key), Settings());
    ASSERT_FALSE(c.ok()) << key;
    EXPECT_THAT(c.status().message(), HasSubstr("key field 'sys_id' is a"));
    EXPECT_THAT(c.status().message(), HasSubstr("a sys_id must be a string"));
  }
  EXPECT_THAT(DecodeCommand(Record(SysIdBody(), R"({"sys_id":)"), Settings()).status().message(),
              HasSubstr("the record key looks like a JSON object but is not valid JSON"));
}

TEST(SysIdTest, FromTheValueField) {
  auto c = DecodeCommand(Record(SysIdBody(std::string(kId1))), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, kId1);
  EXPECT_FALSE(c->fields.contains("sys_id")) << "sys_id is never written as data";

  SinkSettings s = Settings();
  s.sys_id_value_field = "target";
  c = DecodeCommand(Record(R"({"target":")" + std::string(kId2) + R"("})"), s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, kId2);
  EXPECT_THAT(DecodeCommand(Record(R"({"target":7})"), s).status().message(),
              HasSubstr("value field 'target' is a number; a sys_id must be a string"));
}

TEST(SysIdTest, FromTheHeader) {
  auto c = DecodeCommand(Record(SysIdBody(), std::nullopt, {{"snow.sys_id", std::string(kId2)}}),
                         Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, kId2);
}

TEST(SysIdTest, EmptySourcesGiveNone) {
  auto c = DecodeCommand(Record(SysIdBody(" "), "  ", {{"snow.sys_id", ""}}), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, "");
  EXPECT_EQ(c->operation, Operation::kCreate);
}

TEST(SysIdTest, InvalidSysIdNamesItsSource) {
  EXPECT_THAT(DecodeCommand(Record(SysIdBody(), "INC0010001"), Settings()).status().message(),
              HasSubstr("the record key gives 'INC0010001', which is not a sys_id (32 "
                        "hexadecimal digits)"));
  EXPECT_THAT(DecodeCommand(Record(SysIdBody("xyz")), Settings()).status().message(),
              HasSubstr("value field 'sys_id' gives 'xyz', which is not a sys_id"));
  EXPECT_THAT(
      DecodeCommand(Record(SysIdBody(), std::nullopt, {{"snow.sys_id", std::string(31, 'a')}}),
                    Settings())
          .status()
          .message(),
      HasSubstr("header 'snow.sys_id' gives"));
  EXPECT_THAT(
      DecodeCommand(Record(SysIdBody(), std::string(kId1) + "0"), Settings()).status().message(),
      HasSubstr("is not a sys_id"));
}

TEST(SysIdTest, AgreeingSourcesAreFine) {
  auto c = DecodeCommand(
      Record(SysIdBody(std::string(kId1)), std::string(kId1), {{"snow.sys_id", std::string(kId1)}}),
      Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->sys_id, kId1);
}

TEST(SysIdTest, DisagreeingSourcesAreRejectedByDefault) {
  auto c = DecodeCommand(Record(SysIdBody(std::string(kId2)), std::string(kId1)), Settings());
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("the sys_id sources disagree: the record key gives '" + std::string(kId1) +
                        "' but value field 'sys_id' gives '" + std::string(kId2) + "'"));
  EXPECT_THAT(c.status().message(), HasSubstr("snow.sink.sys.id.precedence"));
  c = DecodeCommand(Record(SysIdBody(), std::string(kId1), {{"snow.sys_id", std::string(kId2)}}),
                    Settings());
  EXPECT_THAT(c.status().message(), HasSubstr("header 'snow.sys_id' gives"));
}

TEST(SysIdTest, PrecedenceKey) {
  SinkSettings s = Settings();
  s.sys_id_precedence = SysIdPrecedence::kKey;
  EXPECT_EQ(DecodeCommand(Record(SysIdBody(std::string(kId2)), std::string(kId1)), s)->sys_id,
            kId1);
  // Key first, then the header, then the value.
  EXPECT_EQ(DecodeCommand(Record(SysIdBody(std::string(kId2)), std::nullopt,
                                 {{"snow.sys_id", std::string(kId1)}}),
                          s)
                ->sys_id,
            kId1);
  EXPECT_EQ(DecodeCommand(Record(SysIdBody(std::string(kId2))), s)->sys_id, kId2);
  // Only the winner's shape matters.
  EXPECT_EQ(DecodeCommand(Record(SysIdBody("not-an-id"), std::string(kId1)), s)->sys_id, kId1);
}

TEST(SysIdTest, PrecedenceValue) {
  SinkSettings s = Settings();
  s.sys_id_precedence = SysIdPrecedence::kValue;
  EXPECT_EQ(DecodeCommand(Record(SysIdBody(std::string(kId2)), std::string(kId1)), s)->sys_id,
            kId2);
  EXPECT_EQ(
      DecodeCommand(Record(SysIdBody(), std::string(kId1), {{"snow.sys_id", std::string(kId2)}}), s)
          ->sys_id,
      kId2);
  EXPECT_EQ(DecodeCommand(Record(SysIdBody(), std::string(kId1)), s)->sys_id, kId1);
  // A business key (not a sys_id) is ignored when the value names the row.
  EXPECT_EQ(DecodeCommand(Record(SysIdBody(std::string(kId2)), "INC0010001"), s)->sys_id, kId2);
}

TEST(SysIdTest, SysIdShape) {
  EXPECT_TRUE(IsValidSysId(kId1));
  EXPECT_FALSE(IsValidSysId("0123456789ABCDEF0123456789abcdef"));
  EXPECT_FALSE(IsValidSysId("0123456789abcdef0123456789abcdeg"));
  EXPECT_FALSE(IsValidSysId(""));
}

}  // namespace
}  // namespace snowcar::sink
