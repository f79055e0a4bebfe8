// SPDX-License-Identifier: Apache-2.0
// DecodeFramedParts without a registry: what passes through untouched, what is refused.
// (With a registry: tests/integration/sink/sink_avro_commands_test.cpp.)
#include "sink/commands/command_framed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::sink {
namespace {

using ::testing::HasSubstr;

kafka::InRecord FramedRecordOf(std::optional<std::string> key, std::optional<std::string> value) {
  kafka::InRecord r;
  r.topic = "commands";
  r.key = std::move(key);
  r.value = std::move(value);
  return r;
}

TEST(CommandFramedTest, PlainJsonAndStringsPassUntouched) {
  auto r = DecodeFramedParts(
      FramedRecordOf("9d385017c611228701d22104cc95c371", R"({"short_description":"x"})"), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  auto tombstone = DecodeFramedParts(FramedRecordOf(std::nullopt, std::nullopt), nullptr);
  ASSERT_TRUE(tombstone.ok());
  EXPECT_FALSE(tombstone->has_value());
}

TEST(CommandFramedTest, FramedValueWithoutARegistryNamesTheMissingKey) {
  auto r =
      DecodeFramedParts(FramedRecordOf(std::nullopt, schema_registry::Frame(12, "\x02x")), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(r.status().retriable());
  EXPECT_THAT(r.status().message(), HasSubstr("value"));
  EXPECT_THAT(r.status().message(), HasSubstr("schema id 12"));
  EXPECT_THAT(r.status().message(), HasSubstr("schema.registry.url"));
}

TEST(CommandFramedTest, FramedKeyIsNoticedToo) {
  auto r =
      DecodeFramedParts(FramedRecordOf(schema_registry::Frame(3, "k"), R"({"a":"b"})"), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("the record key"));
}

}  // namespace
}  // namespace snowcar::sink
