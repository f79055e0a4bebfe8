// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "source/ownership/table_ownership_map.h"

namespace snowcar::source {
namespace {

TEST(TablePartitionMapTest, PartitionsFollowTheSortedAliasesWhateverTheListedOrder) {
  const TablePartitionMap a({"inc", "chg", "task", "prb"});
  const TablePartitionMap b({"task", "prb", "inc", "chg"});
  EXPECT_EQ(a.aliases(), (std::vector<std::string>{"chg", "inc", "prb", "task"}));
  for (const std::string alias : {"chg", "inc", "prb", "task"}) {
    EXPECT_EQ(a.PartitionOf(alias), b.PartitionOf(alias)) << alias;
  }
  EXPECT_EQ(a.PartitionOf("chg"), 0);
  EXPECT_EQ(a.PartitionOf("task"), 3);
}

TEST(TablePartitionMapTest, PartitionAndAliasAreInverse) {
  const TablePartitionMap map({"t10", "t2", "t1", "a_b", "z"});
  ASSERT_EQ(map.size(), 5u);
  for (int32_t p = 0; p < 5; ++p) {
    auto alias = map.AliasOf(p);
    ASSERT_TRUE(alias.has_value());
    EXPECT_EQ(map.PartitionOf(*alias), p);
  }
  // Byte-wise order: "t10" sorts before "t2".
  EXPECT_EQ(map.AliasOf(0), "a_b");
  EXPECT_EQ(map.AliasOf(1), "t1");
  EXPECT_EQ(map.AliasOf(2), "t10");
  EXPECT_EQ(map.AliasOf(3), "t2");
}

TEST(TablePartitionMapTest, SparePartitionsAndUnknownAliasesMapToNothing) {
  const TablePartitionMap map({"inc", "chg"});
  EXPECT_FALSE(map.AliasOf(2).has_value());
  EXPECT_FALSE(map.AliasOf(-1).has_value());
  EXPECT_FALSE(map.PartitionOf("prb").has_value());
  EXPECT_FALSE(map.PartitionOf("").has_value());
}

TEST(TablePartitionMapTest, RepeatedAliasesCountOnce) {
  const TablePartitionMap map({"inc", "inc", "chg"});
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(map.PartitionOf("inc"), 1);
}

TEST(TablePartitionMapTest, TopicNamesDeriveFromTheGroup) {
  EXPECT_EQ(CoordinationTopic("snowcar-src"), "snowcar-src.tables");
  EXPECT_EQ(ChangelogTopic("snowcar-src"), "snowcar-src.state");
}

}  // namespace
}  // namespace snowcar::source
