// SPDX-License-Identifier: Apache-2.0
#include "kafka/pending_list.h"

#include <gtest/gtest.h>

#include <vector>

namespace snowcar::kafka::internal {
namespace {

TEST(PendingList, TracksWhatIsLeftBelowALimitInProduceOrder) {
  std::vector<PendingRecord> records(5);
  PendingList list;
  EXPECT_TRUE(list.DoneBelow(100));
  for (uint64_t i = 0; i < records.size(); ++i) {
    records[i].seq = i;
    list.PushBack(&records[i]);
  }
  EXPECT_EQ(list.size(), 5u);
  EXPECT_FALSE(list.DoneBelow(1));
  EXPECT_EQ(list.CountBelow(3), 3u);

  // Reports arrive out of order across partitions.
  list.Remove(&records[2]);
  list.Remove(&records[0]);
  EXPECT_EQ(list.front(), &records[1]);
  EXPECT_EQ(list.CountBelow(3), 1u);
  EXPECT_FALSE(list.DoneBelow(3));
  list.Remove(&records[1]);
  EXPECT_TRUE(list.DoneBelow(3));  // 0..2 all reported; 3 and 4 are younger
  EXPECT_FALSE(list.DoneBelow(4));

  list.Remove(&records[4]);  // the tail
  list.Remove(&records[3]);
  EXPECT_TRUE(list.empty());
  EXPECT_EQ(list.front(), nullptr);

  list.PushBack(&records[4]);  // usable again after emptying
  EXPECT_EQ(list.front(), &records[4]);
  EXPECT_EQ(list.size(), 1u);
}

}  // namespace
}  // namespace snowcar::kafka::internal
