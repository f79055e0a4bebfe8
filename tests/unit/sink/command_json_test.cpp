// SPDX-License-Identifier: Apache-2.0
// The command JSON tree: exact number text, compact output, and refusals of hostile input.
#include "sink/commands/command_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace snowcar::sink {
namespace {

using ::testing::HasSubstr;

TEST(NumberTextTest, NormalisesWithoutLosingDigits) {
  EXPECT_EQ(NormalizeNumberText("2"), "2");
  EXPECT_EQ(NormalizeNumberText("2.0"), "2");
  EXPECT_EQ(NormalizeNumberText("2.5"), "2.5");
  EXPECT_EQ(NormalizeNumberText("2.50"), "2.5");
  EXPECT_EQ(NormalizeNumberText("-0"), "0");
  EXPECT_EQ(NormalizeNumberText("-0.0e5"), "0");
  EXPECT_EQ(NormalizeNumberText("0.001"), "0.001");
  EXPECT_EQ(NormalizeNumberText("1e3"), "1000");
  EXPECT_EQ(NormalizeNumberText("1.5E-2"), "0.015");
  EXPECT_EQ(NormalizeNumberText("-12.34e1"), "-123.4");
  EXPECT_EQ(NormalizeNumberText("100"), "100");
  EXPECT_EQ(NormalizeNumberText("123456789012345678901234567890"),
            "123456789012345678901234567890");
  EXPECT_EQ(NormalizeNumberText("18446744073709551616"), "18446744073709551616");
  EXPECT_EQ(NormalizeNumberText("0.1000000000000000055511151231257827"),
            "0.1000000000000000055511151231257827");
  EXPECT_EQ(NormalizeNumberText("1e400"), "1e400");
  EXPECT_EQ(NormalizeNumberText("-2.5e-60"), "-2.5e-60");
}

TEST(ParseJsonTest, KeepsMemberOrderAndNumberText) {
  auto node = ParseJson(R"({"b": 1.0, "a": [true, null, "x"], "n": 12345678901234567890123})");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  ASSERT_EQ(node->kind, JsonNode::Kind::kObject);
  EXPECT_THAT(node->names, ::testing::ElementsAre("b", "a", "n"));
  EXPECT_EQ(node->Find("b")->text, "1");
  EXPECT_EQ(node->Find("n")->text, "12345678901234567890123");
  EXPECT_EQ(node->Find("missing"), nullptr);
  EXPECT_EQ(WriteCompactJson(*node), R"({"b":1,"a":[true,null,"x"],"n":12345678901234567890123})");
}

TEST(ParseJsonTest, EscapesStringsWhenWriting) {
  auto node = ParseJson(R"({"q":"say \"hi\"\n\u00e9"})");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(WriteCompactJson(*node), "{\"q\":\"say \\\"hi\\\"\\n\xc3\xa9\"}");
}

TEST(ParseJsonTest, RefusesHostileInput) {
  EXPECT_THAT(ParseJson("{\"a\":1").status().message(), HasSubstr("not valid JSON"));
  EXPECT_THAT(ParseJson("{\"a\":1} x").status().message(), HasSubstr("not valid JSON"));
  EXPECT_THAT(ParseJson("").status().message(), HasSubstr("not valid JSON"));
  EXPECT_THAT(ParseJson("{\"a\":\"\xff\xfe\"}").status().message(), HasSubstr("not valid JSON"));
  EXPECT_THAT(ParseJson(R"({"a":1,"b":2,"a":3})").status().message(),
              HasSubstr("the member name 'a' appears twice"));
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  EXPECT_THAT(ParseJson(deep).status().message(), HasSubstr("nested deeper than 64 levels"));
  std::string ok_depth = std::string(60, '[') + std::string(60, ']');
  EXPECT_TRUE(ParseJson(ok_depth).ok());
}

}  // namespace
}  // namespace snowcar::sink
