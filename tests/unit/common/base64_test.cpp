// SPDX-License-Identifier: Apache-2.0
// Base64 (Basic auth, Batch API bodies, masked secrets): RFC 4648 with padding out, and in
// what clients send: padding optional, whitespace skipped, the URL-safe alphabet accepted,
// anything else refused.
#include "snowcar/common/base64.h"

#include <gtest/gtest.h>

namespace snowcar {
namespace {

TEST(Base64Test, EncodesWithPadding) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("admin:admin-emulator"), "YWRtaW46YWRtaW4tZW11bGF0b3I=");
  EXPECT_EQ(Base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
}

TEST(Base64Test, DecodesWhatClientsSend) {
  EXPECT_EQ(Base64Decode(""), "");
  EXPECT_EQ(Base64Decode("Zg=="), "f");
  EXPECT_EQ(Base64Decode("Zg"), "f") << "padding is optional";
  EXPECT_EQ(Base64Decode("Zm8="), "fo");
  EXPECT_EQ(Base64Decode("Zm9vYmFy"), "foobar");
  EXPECT_EQ(Base64Decode(" Zm9v\r\nYmFy\t"), "foobar") << "whitespace is skipped";
  EXPECT_EQ(Base64Decode("__4A"), std::string("\xff\xfe\x00", 3)) << "URL-safe alphabet";
  EXPECT_EQ(Base64Decode("//4A"), std::string("\xff\xfe\x00", 3));
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  EXPECT_EQ(Base64Decode(Base64Encode(all)), all);
}

TEST(Base64Test, RefusesWhatIsNotBase64) {
  EXPECT_FALSE(Base64Decode("Zm9v!"));
  EXPECT_FALSE(Base64Decode("Zg==Zg==")) << "data after padding";
  EXPECT_FALSE(Base64Decode("Z")) << "a lone trailing character";
  EXPECT_FALSE(Base64Decode("Zm9vY")) << "a lone trailing character";
  EXPECT_FALSE(Base64Decode("\xc3\xa9"));
}

}  // namespace
}  // namespace snowcar
