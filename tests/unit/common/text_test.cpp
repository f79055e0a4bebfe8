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

}  // namespace
}  // namespace snowcar
