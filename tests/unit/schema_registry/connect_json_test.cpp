// SPDX-License-Identifier: Apache-2.0
// Kafka Connect's logical types in JSON Schema payloads (JsonSchemaConverter's schema shapes):
// the marked values become Table API text, every other value keeps its exact text.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snowcar/schema_registry/framed_decoder.h"

namespace snowcar::schema_registry {
namespace {

using ::testing::HasSubstr;

constexpr char kConnectJsonSchema[] = R"({"type":"object","title":"acme.Command","properties":{
  "opened_at":{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp",
    "connect.version":1,"connect.index":0,"connect.type":"int64"},
  "due":{"connect.index":1,"oneOf":[{"type":"null"},{"type":"integer",
    "title":"org.apache.kafka.connect.data.Date","connect.version":1,"connect.type":"int32"}]},
  "at":{"type":"integer","title":"org.apache.kafka.connect.data.Time","connect.version":1,
    "connect.type":"int32"},
  "cost":{"type":"number","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,
    "connect.parameters":{"scale":"2"},"connect.type":"bytes"},
  "cost_n":{"type":"number","title":"org.apache.kafka.connect.data.Decimal",
    "connect.parameters":{"scale":"2"},"connect.type":"bytes"},
  "big":{"type":"number","connect.type":"float64"},
  "lines":{"type":"array","items":{"type":"object","properties":{
    "day":{"type":"integer","title":"org.apache.kafka.connect.data.Date"}}}},
  "seen":{"type":"object","connect.type":"map","additionalProperties":{"type":"integer",
    "title":"org.apache.kafka.connect.data.Timestamp"}}}})";

TEST(ConnectJsonTest, MarkedValuesBecomeTableApiTextAndTheRestKeepsItsText) {
  auto out = JsonSchemaToJson(kConnectJsonSchema, R"({"opened_at": 1733300000123, "due": 20061,
      "at": 47109999, "cost": "+y4=", "cost_n": 12.30, "big": 123456789012345678901234567890,
      "lines": [{"day": 0}, {"day": null}], "seen": {"a\u00e9": -1},
      "short_description": "tab\there", "n": 1e3})");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            R"({"opened_at":"2024-12-04 08:13:20","due":"2024-12-04","at":"13:05:09",)"
            R"("cost":"-12.34","cost_n":12.30,"big":123456789012345678901234567890,)"
            R"("lines":[{"day":"1970-01-01"},{"day":null}],"seen":{"aé":"1969-12-31 23:59:59"},)"
            R"("short_description":"tab\there","n":1e3})");
}

TEST(ConnectJsonTest, SchemaWithoutConnectTitlesLeavesThePayloadAsItIs) {
  const char payload[] = R"({ "opened_at" : 1733300000123, "x": 1.50 })";
  auto out = JsonSchemaToJson(R"({"type":"object","properties":{"opened_at":{"type":"integer"}}})",
                              payload);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, payload);
}

TEST(ConnectJsonTest, WrongOrUnrepresentableValuesAreRefusedNamingTheField) {
  auto expect_error = [](const char* payload, const char* part1, const char* part2) {
    auto out = JsonSchemaToJson(kConnectJsonSchema, payload);
    ASSERT_FALSE(out.ok()) << payload;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr(part1));
    EXPECT_THAT(out.status().message(), HasSubstr(part2));
  };
  expect_error(R"({"opened_at":"2024-12-04"})", "field 'opened_at' (Connect Timestamp)",
               "not the string '2024-12-04'");
  expect_error(R"({"opened_at":1.5})", "field 'opened_at'", "whole number");
  expect_error(R"({"due":true})", "field 'due' (Connect Date)", "not true");
  expect_error(R"({"lines":[{"day":1},{"day":2932897}]})", "field 'lines[1].day'",
               "date value 2932897");
  expect_error(R"({"at":86400000})", "field 'at' (Connect Time)", "one day");
  expect_error(R"({"cost":"not base64!"})", "field 'cost' (Connect Decimal)", "not base64");
  expect_error(R"({"cost":""})", "field 'cost'", "no bytes");
  expect_error(R"({"opened_at":{}})", "field 'opened_at'", "not an object");
  expect_error(R"({"a":1} x)", "", "left over");
  expect_error(R"({"a":)", "", "not JSON");
}

TEST(ConnectJsonTest, BadDecimalScaleInTheSchemaIsRefused) {
  auto out = JsonSchemaToJson(R"({"type":"number","title":"org.apache.kafka.connect.data.Decimal",
      "connect.parameters":{"scale":"two"}})",
                              "1");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("scale \"two\""));
}

}  // namespace
}  // namespace snowcar::schema_registry
