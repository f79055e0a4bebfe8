// SPDX-License-Identifier: Apache-2.0
// How many ranges of a parallel backfill read at once (backfill_concurrency.h): more only
// while the table keeps waiting on the instance, fewer while pages wait on the table.
#include "source/backfill/backfill_concurrency.h"

#include <gtest/gtest.h>

namespace snowcar::source {
namespace {

TEST(BackfillConcurrency, StartsWithOneRange) { EXPECT_EQ(BackfillConcurrency(4).ranges(), 1U); }

TEST(BackfillConcurrency, TheFirstIdlePageAloneOpensNothing) {
  // The first page of a backfill always finds nothing waiting; an instance that answers at
  // once is not a reason to read a second range.
  BackfillConcurrency c(4);
  c.OnPage(0, 0);
  EXPECT_EQ(c.ranges(), 1U);
  c.OnPage(1, 0);  // the next page arrived while the first was still being produced
  c.OnPage(2, 0);
  c.OnPage(0, 0);
  EXPECT_EQ(c.ranges(), 1U) << "idle pages must follow each other";
}

TEST(BackfillConcurrency, RecordsStillInFlightMeanTheTableWasNotIdle) {
  // The last page's rows on their way to Kafka: the table was busy when the page came.
  BackfillConcurrency c(4);
  for (int i = 0; i < 5; ++i) c.OnPage(0, 3);
  EXPECT_EQ(c.ranges(), 1U);
}

TEST(BackfillConcurrency, PagesThatKeepFindingTheTableIdleOpenEveryRange) {
  BackfillConcurrency c(4);
  c.OnPage(0, 0);
  c.OnPage(0, 0);
  EXPECT_EQ(c.ranges(), 2U);
  for (int i = 0; i < 10; ++i) c.OnPage(0, 0);
  EXPECT_EQ(c.ranges(), 4U) << "never more than the ranges";
}

TEST(BackfillConcurrency, PagesThatFindPagesWaitingCloseRangesAgain) {
  BackfillConcurrency c(8);
  for (int i = 0; i < 5; ++i) c.OnPage(0, 0);
  EXPECT_EQ(c.ranges(), 5U);
  c.OnPage(1, 0);  // one waiting: the table keeps up, nothing changes
  EXPECT_EQ(c.ranges(), 5U);
  c.OnPage(2, 0);
  c.OnPage(3, 0);
  EXPECT_EQ(c.ranges(), 3U);
  for (int i = 0; i < 10; ++i) c.OnPage(2, 0);
  EXPECT_EQ(c.ranges(), 1U) << "never below one range";
}

// The cut's counts came from a slow instance: one range could not keep the table busy, so
// every range opens at once rather than one per two idle pages. Pages that then find pages
// waiting still close ranges.
TEST(BackfillConcurrency, SlowCountsOpenEveryRangeAtOnce) {
  EXPECT_EQ(BackfillConcurrency(4, kSlowCountMs).ranges(), 4U);
  EXPECT_EQ(BackfillConcurrency(4, 300).ranges(), 4U);
  EXPECT_EQ(BackfillConcurrency(4, kSlowCountMs - 1).ranges(), 1U) << "a fast instance";
  EXPECT_EQ(BackfillConcurrency(4, 0).ranges(), 1U) << "nothing timed: resumed";
  BackfillConcurrency c(4, 300);
  c.OnPage(2, 0);
  EXPECT_EQ(c.ranges(), 3U);
}

}  // namespace
}  // namespace snowcar::source
