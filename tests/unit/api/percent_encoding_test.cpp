// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/percent_encoding.h"

#include <gtest/gtest.h>

namespace snowcar::api {
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

}  // namespace
}  // namespace snowcar::api
