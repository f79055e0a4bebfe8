// SPDX-License-Identifier: Apache-2.0
// The one JSON string escaper: what it escapes, what it leaves alone, and that Boost.JSON
// reads back exactly the text that went in, across the 8-byte fast path's boundaries.
#include "snowcar/common/json_escape.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace snowcar {
namespace {

std::string Quoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

TEST(JsonEscapeTest, EscapesQuotesBackslashesAndControlCharactersOnly) {
  EXPECT_EQ(Quoted(std::string("a\"b\\c\n\r\t\b\f\x1f\x7f/\xc3\xa9\0z", 17)),
            "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u001f\x7f/\xc3\xa9\\u0000z\"");
  EXPECT_EQ(Quoted(""), "\"\"");
  std::string out = "x=";
  AppendJsonEscaped(out, "plain text");
  EXPECT_EQ(out, "x=plain text") << "no quotes, appended";
}

TEST(JsonEscapeTest, RoundTripsEveryByteAtEveryOffset) {
  std::string all;
  for (int c = 1; c < 256; ++c) all += static_cast<char>(c < 0x80 ? c : 'a');
  all += "\xe2\x82\xac";  // UTF-8 stays as it is
  for (size_t offset = 0; offset < 9; ++offset) {
    const std::string text = std::string(offset, 'p') + all + std::string(offset, 'q');
    const auto parsed = boost::json::parse(Quoted(text));
    ASSERT_TRUE(parsed.is_string());
    EXPECT_EQ(std::string(parsed.as_string()), text) << "offset " << offset;
  }
}

}  // namespace
}  // namespace snowcar
