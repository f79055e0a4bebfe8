// SPDX-License-Identifier: Apache-2.0
#include "snowcar/config/properties.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "temp_dir.h"

namespace snowcar::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// key -> value of a successful parse, for compact assertions.
std::vector<std::pair<std::string, std::string>> Pairs(std::string_view text) {
  auto parsed = ParseProperties(text, "t.properties");
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  std::vector<std::pair<std::string, std::string>> out;
  if (!parsed.ok()) return out;
  for (const auto& p : parsed->entries) out.emplace_back(p.key, p.value);
  return out;
}

using P = std::pair<std::string, std::string>;

TEST(PropertiesTest, ThreeSeparatorStyles) {
  EXPECT_THAT(Pairs("a=1\nb: 2\nc 3\nd\t4\n"),
              ElementsAre(P{"a", "1"}, P{"b", "2"}, P{"c", "3"}, P{"d", "4"}));
}

TEST(PropertiesTest, BlanksAroundSeparatorDropValueTrailingBlanksKept) {
  EXPECT_THAT(Pairs("  a   =   x y  \n\tb :\tz\n"), ElementsAre(P{"a", "x y  "}, P{"b", "z"}));
}

TEST(PropertiesTest, OnlyFirstSeparatorSplits) {
  EXPECT_THAT(Pairs("url=https://x:8080/a=b\nk v=w\n"),
              ElementsAre(P{"url", "https://x:8080/a=b"}, P{"k", "v=w"}));
}

TEST(PropertiesTest, CommentsAndBlankLinesIgnored) {
  EXPECT_THAT(
      Pairs("# comment\n! also comment\n\n   \n  # indented comment\na=1 # not a comment\n"),
      ElementsAre(P{"a", "1 # not a comment"}));
}

TEST(PropertiesTest, KeyWithoutValueIsEmpty) {
  EXPECT_THAT(Pairs("alone\nwith.eq=\n"), ElementsAre(P{"alone", ""}, P{"with.eq", ""}));
}

TEST(PropertiesTest, ContinuationJoinsLinesAndDropsLeadingBlanks) {
  EXPECT_THAT(Pairs("list=a,\\\n    b,\\\n\tc\nnext=1\n"),
              ElementsAre(P{"list", "a,b,c"}, P{"next", "1"}));
}

TEST(PropertiesTest, EvenBackslashesDoNotContinue) {
  EXPECT_THAT(Pairs("path=C:\\\\\nnext=1\n"), ElementsAre(P{"path", "C:\\"}, P{"next", "1"}));
}

TEST(PropertiesTest, ContinuationAtEndOfInputEndsEntry) {
  EXPECT_THAT(Pairs("a=x\\"), ElementsAre(P{"a", "x"}));
}

TEST(PropertiesTest, CommentLineEndingInBackslashDoesNotContinue) {
  EXPECT_THAT(Pairs("# note \\\na=1\n"), ElementsAre(P{"a", "1"}));
}

TEST(PropertiesTest, CrLfAndCrLineEnds) {
  EXPECT_THAT(Pairs("a=1\r\nb=2\rc=3"), ElementsAre(P{"a", "1"}, P{"b", "2"}, P{"c", "3"}));
}

TEST(PropertiesTest, Escapes) {
  EXPECT_THAT(Pairs(R"(e=tab\there\nnl\rcr\fff\\bs\=eq\:co\#h\!b\ sp\q)"),
              ElementsAre(P{"e", "tab\there\nnl\rcr\fff\\bs=eq:co#h!b spq"}));
}

TEST(PropertiesTest, EscapedSeparatorsInKey) {
  EXPECT_THAT(Pairs(R"(a\=b\:c\ d=v)"), ElementsAre(P{"a=b:c d", "v"}));
}

TEST(PropertiesTest, UnicodeEscapesBecomeUtf8) {
  EXPECT_THAT(Pairs(R"(u=\u0041\u00e9\u20AC\uD83D\uDE00)"),
              ElementsAre(P{"u", "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"}));
}

TEST(PropertiesTest, Utf8TextPassesThrough) {
  EXPECT_THAT(Pairs("name=Zürich\n"), ElementsAre(P{"name", "Zürich"}));
}

TEST(PropertiesTest, Utf8ByteOrderMarkSkipped) {
  EXPECT_THAT(Pairs("\xEF\xBB\xBFthreads=2\n"), ElementsAre(P{"threads", "2"}));
}

TEST(PropertiesTest, DuplicateKeyLastWinsWithNote) {
  auto parsed = ParseProperties("a=1\nb=2\na=3\n", "app.properties");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->entries.size(), 2u);
  EXPECT_EQ(parsed->entries[0].key, "a");
  EXPECT_EQ(parsed->entries[0].value, "3");
  EXPECT_EQ(parsed->entries[0].line, 3);
  ASSERT_EQ(parsed->notes.size(), 1u);
  EXPECT_THAT(parsed->notes[0], HasSubstr("app.properties:3"));
  EXPECT_THAT(parsed->notes[0], HasSubstr("'a' repeats line 1"));
}

TEST(PropertiesTest, LineNumbersCountContinuedAndCommentLines) {
  auto parsed = ParseProperties("# c\na=1,\\\n  2\n\nb=3\n", "x");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->entries.size(), 2u);
  EXPECT_EQ(parsed->entries[0].line, 2);
  EXPECT_EQ(parsed->entries[1].line, 5);
}

TEST(PropertiesTest, MalformedUnicodeEscapeNamesFileAndLine) {
  auto parsed = ParseProperties("ok=1\nbad=\\u12G4\n", "app.properties");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("app.properties:2: malformed \\u escape"));
}

TEST(PropertiesTest, TruncatedUnicodeEscapeIsAnError) {
  auto parsed = ParseProperties("k=\\u12", "f");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("f:1: malformed"));
}

TEST(PropertiesTest, LoneSurrogatesAreErrors) {
  auto high = ParseProperties("k=\\uD83Dx", "f");
  ASSERT_FALSE(high.ok());
  EXPECT_THAT(high.status().message(), HasSubstr("high surrogate"));
  auto low = ParseProperties("k=\\uDE00", "f");
  ASSERT_FALSE(low.ok());
  EXPECT_THAT(low.status().message(), HasSubstr("low surrogate"));
}

TEST(PropertiesTest, EmptyKeyIsAnError) {
  auto parsed = ParseProperties("=value\n", "f");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("f:1: entry has no key"));
}

TEST(PropertiesTest, EveryMalformedLineReported) {
  auto parsed = ParseProperties("a=\\uZZZZ\nb=1\n:x\n", "f");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("2 malformed properties lines"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("f:1:"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("f:3:"));
}

TEST(PropertiesTest, EscapeRoundTrips) {
  const std::string key = "we:ird key=";
  const std::string value = " lead\ttab\nnl\\back #x";
  const std::string text = EscapePropertiesKey(key) + "=" + EscapePropertiesValue(value) + "\n" +
                           EscapePropertiesKey("#k") + "=" + EscapePropertiesValue("!v") + "\n";
  EXPECT_THAT(Pairs(text), ElementsAre(P{key, value}, P{"#k", "!v"}));
}

// Found by the properties fuzzer: the reader drops a byte-order mark at the start of the text,
// so a key starting with one must be escaped to survive as the file's first entry.
TEST(PropertiesTest, EscapedKeyKeepsALeadingByteOrderMark) {
  const std::string key = "\xEF\xBB\xBFk";
  EXPECT_EQ(EscapePropertiesKey(key), "\\uFEFFk");
  EXPECT_THAT(Pairs(EscapePropertiesKey(key) + "=v\n"), ElementsAre(P{key, "v"}));
}

TEST(PropertiesTest, ReadsFile) {
  testing::TempDir dir;
  const std::string path = dir.Write("a.properties", "threads=2\n");
  auto parsed = ReadPropertiesFile(path);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->entries.size(), 1u);
  EXPECT_EQ(parsed->entries[0].value, "2");
}

TEST(PropertiesTest, MissingFileNamesPath) {
  testing::TempDir dir;
  auto parsed = ReadPropertiesFile(dir.Path("nope.properties"));
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("nope.properties"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("No such file"));
}

}  // namespace
}  // namespace snowcar::config

namespace snowcar::config {
namespace {

// Random text built from the characters that matter to the grammar: the parser must never
// crash, and what it accepts must survive Escape -> Parse unchanged.
TEST(PropertiesTest, RandomInputParsesOrFailsCleanlyAndRoundTrips) {
  constexpr std::string_view kAlphabet = "ab=: \t\\u0D8E#!\n\r\f\xC3\xA9";
  uint32_t state = 12345;
  const auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const size_t len = next() % 40;
    for (size_t i = 0; i < len; ++i) text += kAlphabet[next() % kAlphabet.size()];
    auto parsed = ParseProperties(text, "fuzz");
    if (!parsed.ok()) {
      EXPECT_THAT(parsed.status().message(), HasSubstr("fuzz:")) << text;
      continue;
    }
    ++accepted;
    std::string again;
    for (const Property& p : parsed->entries) {
      again += EscapePropertiesKey(p.key) + "=" + EscapePropertiesValue(p.value) + "\n";
    }
    auto reparsed = ParseProperties(again, "again");
    ASSERT_TRUE(reparsed.ok()) << again;
    ASSERT_EQ(reparsed->entries.size(), parsed->entries.size()) << again;
    for (size_t i = 0; i < parsed->entries.size(); ++i) {
      EXPECT_EQ(reparsed->entries[i].key, parsed->entries[i].key);
      EXPECT_EQ(reparsed->entries[i].value, parsed->entries[i].value);
    }
  }
  EXPECT_GT(accepted, 500);  // the generator must exercise the success path, not only errors
}

}  // namespace
}  // namespace snowcar::config
