// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/wire_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace snowcar::schema_registry {
namespace {

using ::testing::HasSubstr;

TEST(WireFormatTest, HeaderIsMagicByteAndBigEndianId) {
  const std::string framed = Frame(0x01020304, "payload");
  ASSERT_EQ(framed.size(), 5u + 7u);
  EXPECT_EQ(framed[0], '\0');
  EXPECT_EQ(framed[1], '\x01');
  EXPECT_EQ(framed[2], '\x02');
  EXPECT_EQ(framed[3], '\x03');
  EXPECT_EQ(framed[4], '\x04');
  EXPECT_EQ(framed.substr(5), "payload");
}

TEST(WireFormatTest, RoundTripsIdsAcrossTheWholeRange) {
  for (int32_t id : {0, 1, 255, 256, 65536, 2147483647, -1, -2147483647 - 1}) {
    const std::string framed = Frame(id, "x");
    auto u = Unframe(framed);
    ASSERT_TRUE(u.ok()) << u.status().message();
    EXPECT_EQ(u->schema_id, id);
    EXPECT_EQ(u->payload, "x");
  }
}

TEST(WireFormatTest, EmptyPayloadIsAllowed) {
  const std::string framed = Frame(7, "");
  auto u = Unframe(framed);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->schema_id, 7);
  EXPECT_TRUE(u->payload.empty());
}

TEST(WireFormatTest, AppendWriteIntoAnExistingBuffer) {
  std::string out = "prefix";
  AppendWireHeader(42, out);
  EXPECT_EQ(out.size(), 6u + 5u);
  EXPECT_EQ(Unframe(std::string_view(out).substr(6))->schema_id, 42);
}

TEST(WireFormatTest, ShortRecordIsRefusedWithItsLength) {
  const std::string short_record("\0\0\0", 3);
  auto u = Unframe(short_record);
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(u.status().message(), HasSubstr("3 bytes"));
  EXPECT_FALSE(LooksFramed(std::string("\0\0\0", 3)));
}

TEST(WireFormatTest, PlainJsonIsNotFramed) {
  const std::string json = R"({"short_description":"x"})";
  EXPECT_FALSE(LooksFramed(json));
  auto u = Unframe(json);
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(u.status().message(), HasSubstr("byte 123"));
  EXPECT_THAT(u.status().message(), HasSubstr("magic byte 0"));
}

}  // namespace
}  // namespace snowcar::schema_registry
