// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/url_encoding.h"

#include <gtest/gtest.h>

namespace snowcar {
namespace {

TEST(PercentDecode, DecodesEscapesInAnyCase) {
  auto r = PercentDecode("a%2Fb%2fc%20d");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "a/b/c d");
}

TEST(PercentDecode, PlusIsSpaceOnlyWhenAsked) {
  EXPECT_EQ(*PercentDecode("a+b"), "a+b");
  EXPECT_EQ(*PercentDecode("a+b", true), "a b");
}

TEST(PercentDecode, DecodesBytesIncludingNul) {
  auto r = PercentDecode("%00%FF");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, std::string("\0\xff", 2));
}

TEST(PercentDecode, MalformedEscapeIsAnErrorNamingIt) {
  for (const char* bad : {"abc%", "abc%4", "abc%zz", "%g1x"}) {
    auto r = PercentDecode(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("malformed percent escape"), std::string::npos);
    EXPECT_NE(r.status().message().find("'%"), std::string::npos) << r.status().message();
  }
  EXPECT_NE(PercentDecode("x%zz").status().message().find("'%zz' at offset 1"), std::string::npos);
}

TEST(PercentEncode, RoundTripsArbitraryBytes) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  const std::string encoded = PercentEncode(all);
  EXPECT_EQ(encoded.find('/'), std::string::npos);
  EXPECT_EQ(encoded.find(' '), std::string::npos);
  EXPECT_EQ(encoded.find('?'), std::string::npos);
  EXPECT_EQ(*PercentDecode(encoded), all);
  EXPECT_EQ(PercentEncode("inc_0001-a.b~"), "inc_0001-a.b~");
}

TEST(PercentEncode, UsesUpperCaseHexAndEncodesUtf8ByteByByte) {
  EXPECT_EQ(PercentEncode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
  EXPECT_EQ(PercentEncode("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(PercentEncode("+"), "%2B");
}

}  // namespace
}  // namespace snowcar
