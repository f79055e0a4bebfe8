// SPDX-License-Identifier: Apache-2.0
// The dedup block value (schema version 3): entries round-trip exactly, whatever the id, and a
// damaged value is reported as damaged instead of read as fewer entries.
#include "state/dedup_block.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace snowcar::state::block {
namespace {

using Entry = std::tuple<int64_t, std::string, uint32_t>;

std::vector<Entry> ReadAll(std::string_view value, bool* ok) {
  Reader reader(value);
  std::vector<Entry> out;
  int64_t ts;
  std::string_view id;
  uint32_t mod;
  while (reader.Next(&ts, &id, &mod)) out.emplace_back(ts, std::string(id), mod);
  *ok = reader.ok();
  return out;
}

TEST(DedupBlockTest, EntriesRoundTripWhateverTheId) {
  const std::vector<Entry> entries = {
      {1700000000, "0123456789abcdef0123456789abcdef", 0},
      {-5, "ffffffffffffffffffffffffffffffff", 4000000000u},
      {1700000001, "0123456789ABCDEF0123456789ABCDEF", 3},  // uppercase: another row
      {1700000001, "short-id", 1},
      {1700000002, "", 2},
      {1700000003, std::string("a\0b", 3), 7},
  };
  std::string value;
  Begin(&value);
  for (const auto& [ts, id, mod] : entries) Append(&value, ts, id, mod);
  bool ok = false;
  EXPECT_EQ(ReadAll(value, &ok), entries);
  EXPECT_TRUE(ok);
}

TEST(DedupBlockTest, AHexIdTakesTwentyNineBytes) {
  std::string value;
  Begin(&value);
  Append(&value, 1, "0123456789abcdef0123456789abcdef", 0);
  EXPECT_EQ(value.size(), 1u + 29u);
  Append(&value, 1, "0123456789abcdef0123456789abcdeg", 0);  // 'g': not hex, kept as text
  EXPECT_EQ(value.size(), 1u + 29u + 13u + 4u + 32u);
}

TEST(DedupBlockTest, AnEmptyBlockHoldsNothing) {
  std::string value;
  Begin(&value);
  bool ok = false;
  EXPECT_TRUE(ReadAll(value, &ok).empty());
  EXPECT_TRUE(ok);
}

TEST(DedupBlockTest, DamageIsReportedNotSkipped) {
  std::string good;
  Begin(&good);
  Append(&good, 1, "0123456789abcdef0123456789abcdef", 0);
  Append(&good, 2, "odd-id", 0);
  std::vector<std::string> damaged = {
      "",                                       // no format byte
      std::string(1, '\x02') + good.substr(1),  // an unknown format
      good.substr(0, good.size() - 1),          // the last id cut short
      good.substr(0, 1 + 20),                   // a hex id cut short
      good + "x",                               // a stray byte after the last entry
  };
  std::string bad_kind = good;
  bad_kind[1 + 12] = '\x07';  // the first entry's id kind
  damaged.push_back(bad_kind);
  for (const std::string& value : damaged) {
    bool ok = true;
    ReadAll(value, &ok);
    EXPECT_FALSE(ok) << "a damaged value of " << value.size() << " bytes read as whole";
  }
}

}  // namespace
}  // namespace snowcar::state::block
