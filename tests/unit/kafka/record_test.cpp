// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/record.h"

#include <gtest/gtest.h>

#include <set>

namespace snowcar::kafka {
namespace {

TEST(FindHeader, ReturnsTheFirstExactMatch) {
  const Headers h = {{"a", "1"}, {"b", std::nullopt}, {"a", "2"}};
  ASSERT_NE(FindHeader(h, "a"), nullptr);
  EXPECT_EQ(FindHeader(h, "a")->value, "1");
  ASSERT_NE(FindHeader(h, "b"), nullptr);
  EXPECT_FALSE(FindHeader(h, "b")->value.has_value());
  EXPECT_EQ(FindHeader(h, "A"), nullptr);  // case-sensitive, as Kafka is
  EXPECT_EQ(FindHeader({}, "a"), nullptr);
}

TEST(TopicPartition, PrintsAndOrders) {
  EXPECT_EQ((TopicPartition{"incident", 3}).ToString(), "incident/3");
  std::set<TopicPartition> s = {{"b", 0}, {"a", 2}, {"a", 1}};
  EXPECT_EQ(s.begin()->ToString(), "a/1");
}

}  // namespace
}  // namespace snowcar::kafka
