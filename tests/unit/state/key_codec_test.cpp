// SPDX-License-Identifier: Apache-2.0
#include "state/key_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace snowcar::state::codec {
namespace {

TEST(KeyCodecTest, OrderedIntegersSortNumerically) {
  const std::vector<int64_t> values = {
      std::numeric_limits<int64_t>::min(), -86400, -1, 0, 1, 1764664800,
      std::numeric_limits<int64_t>::max()};
  std::vector<std::string> encoded;
  for (int64_t v : values) {
    std::string s;
    AppendI64Ordered(&s, v);
    ASSERT_EQ(s.size(), 8u);
    EXPECT_EQ(ReadI64Ordered(s.data()), v);
    encoded.push_back(s);
  }
  EXPECT_TRUE(std::is_sorted(encoded.begin(), encoded.end()));
}

TEST(KeyCodecTest, DedupKeysOfATableSortByTimestampThenId) {
  const std::string prefix = DedupPrefix("acme", "incident");
  auto key = [&](int64_t ts, std::string_view id, uint32_t mod) {
    std::string k = prefix;
    AppendDedupSuffix(&k, ts, id, mod);
    return k;
  };
  EXPECT_LT(key(99, "ffff", 9), key(100, "0000", 0));
  EXPECT_LT(key(100, "aaaa", 1), key(100, "aaab", 0));
  EXPECT_LT(key(100, "aaaa", 1), key(100, "aaaa", 2));
  EXPECT_LT(key(-5, "a", 0), key(3, "a", 0));
}

TEST(KeyCodecTest, DedupSuffixRoundTripsAnyId) {
  for (std::string_view id :
       {std::string_view(""), std::string_view("x"),
        std::string_view("0123456789abcdef0123456789abcdef"), std::string_view("with\0nul", 8)}) {
    std::string k = DedupPrefix("acme", "t");
    AppendDedupSuffix(&k, -42, id, 4000000000u);
    int64_t ts;
    std::string_view got;
    uint32_t mod;
    ASSERT_TRUE(DecodeDedupSuffix(std::string_view(k).substr(DedupPrefix("acme", "t").size()), &ts,
                                  &got, &mod));
    EXPECT_EQ(ts, -42);
    EXPECT_EQ(got, id);
    EXPECT_EQ(mod, 4000000000u);
  }
  int64_t ts;
  std::string_view id;
  uint32_t mod;
  EXPECT_FALSE(DecodeDedupSuffix("short", &ts, &id, &mod));
}

TEST(KeyCodecTest, TablePrefixesNeverOverlap) {
  // "inc" must not be a prefix of "incident"'s keys, or a range delete of one table would
  // reach into the other.
  const std::string a = DedupPrefix("acme", "inc");
  const std::string b = DedupPrefix("acme", "incident");
  EXPECT_NE(b.compare(0, a.size(), a), 0);
  EXPECT_LT(DedupPrefix("acme", "x") + std::string(20, '\xff'),
            PrefixSuccessor(DedupPrefix("acme", "x")));
}

TEST(KeyCodecTest, CursorKeyRoundTripsAndSharesTheInstanceTablePrefix) {
  CursorIdentity id{"acme.service-now.com", "incident", "fp", "sys_updated_on"};
  const std::string key = CursorKey(id);
  EXPECT_EQ(key.rfind(CursorPrefix(id.instance, id.table), 0), 0u);
  auto back = DecodeCursorKey(key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, id);
  EXPECT_FALSE(DecodeCursorKey(key.substr(0, key.size() - 1)).has_value());
  EXPECT_FALSE(DecodeCursorKey(key + "x").has_value());
}

TEST(KeyCodecTest, CursorValueRoundTripsAndRejectsDamage) {
  Cursor c{1764664800, "0123456789abcdef0123456789abcdef", Phase::kStream};
  const std::string v = EncodeCursorValue(c, 12345);
  Cursor back;
  int64_t at = 0;
  ASSERT_TRUE(DecodeCursorValue(v, &back, &at));
  EXPECT_EQ(back, c);
  EXPECT_EQ(at, 12345);
  EXPECT_FALSE(DecodeCursorValue(v.substr(0, 5), &back, &at));
  std::string bad_phase = v;
  bad_phase[1] = 7;
  EXPECT_FALSE(DecodeCursorValue(bad_phase, &back, &at));
  std::string bad_format = v;
  bad_format[0] = 9;
  EXPECT_FALSE(DecodeCursorValue(bad_format, &back, &at));
}

TEST(KeyCodecTest, SchemaVersionRoundTrips) {
  EXPECT_EQ(DecodeSchemaVersion(EncodeSchemaVersion(7)), 7u);
  EXPECT_FALSE(DecodeSchemaVersion("abc").has_value());
}

}  // namespace
}  // namespace snowcar::state::codec
