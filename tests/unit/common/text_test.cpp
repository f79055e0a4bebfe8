// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/text.h"

#include <gtest/gtest.h>

namespace snowcar {
namespace {

// Header values and list items arrive padded with any ASCII white space, CR and LF included
// (a header line split at its end); the text between keeps its inner spaces.
TEST(TrimSpaceTest, RemovesAsciiWhiteSpaceAtBothEndsOnly) {
  EXPECT_EQ(TrimSpace("  max-age=0\r\n"), "max-age=0");
  EXPECT_EQ(TrimSpace("\t\v\f a b \t"), "a b");
  EXPECT_EQ(TrimSpace("plain"), "plain");
  EXPECT_EQ(TrimSpace(" \r\n\t"), "");
  EXPECT_EQ(TrimSpace(""), "");
  EXPECT_EQ(TrimSpace("\xc2\xa0x"), "\xc2\xa0x") << "non-ASCII bytes are not white space";
}

TEST(EqualsIgnoreCaseTest, ComparesAsciiLettersWithoutCase) {
  EXPECT_TRUE(EqualsIgnoreCase("Retry-After", "retry-after"));
  EXPECT_FALSE(EqualsIgnoreCase("Retry-After", "Retry-Afte"));
  EXPECT_FALSE(EqualsIgnoreCase("a", "b"));
}

// One table for the socket API and the emulator: the registered phrases, "Unknown" otherwise.
TEST(HttpReasonPhraseTest, NamesRegisteredCodesOnly) {
  EXPECT_EQ(HttpReasonPhrase(200), "OK");
  EXPECT_EQ(HttpReasonPhrase(404), "Not Found");
  EXPECT_EQ(HttpReasonPhrase(413), "Payload Too Large");
  EXPECT_EQ(HttpReasonPhrase(429), "Too Many Requests");
  EXPECT_EQ(HttpReasonPhrase(431), "Request Header Fields Too Large");
  EXPECT_EQ(HttpReasonPhrase(503), "Service Unavailable");
  EXPECT_EQ(HttpReasonPhrase(299), "Unknown");
  EXPECT_EQ(HttpReasonPhrase(-1), "Unknown");
  EXPECT_EQ(HttpReasonPhrase(70000), "Unknown");
}

}  // namespace
}  // namespace snowcar
