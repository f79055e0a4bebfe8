// SPDX-License-Identifier: Apache-2.0
// The freshness bench's arithmetic: nearest-rank percentiles, and how arrivals are matched to
// changes (seen, duplicate, superseded, lost, unmatched).
#include "freshness_tally.h"

#include <gtest/gtest.h>

#include <numeric>

namespace snowcar::bench {
namespace {

TEST(NearestRank, PicksTheSmallestValueWithAtLeastPPercentAtOrBelowIt) {
  std::vector<int64_t> hundred(100);
  std::iota(hundred.begin(), hundred.end(), 1);  // 1..100
  EXPECT_EQ(NearestRank(hundred, 50), 50);
  EXPECT_EQ(NearestRank(hundred, 99), 99);
  EXPECT_EQ(NearestRank(hundred, 100), 100);
  EXPECT_EQ(NearestRank(hundred, 0.5), 1);

  // Ten values: the 99th percentile is the largest (rank ceil(9.9) = 10), the median the 5th.
  const std::vector<int64_t> ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1000};
  EXPECT_EQ(NearestRank(ten, 50), 5);
  EXPECT_EQ(NearestRank(ten, 99), 1000);

  EXPECT_EQ(NearestRank({42}, 50), 42);
  EXPECT_EQ(NearestRank({}, 50), 0);
}

TEST(Summarize, MatchesArrivalsBySequenceAndMeasuresFromTheAnswer) {
  const std::vector<Change> changes = {
      {1, "fr0/a", 1'000'000}, {2, "fr0/b", 2'000'000}, {3, "fr1/c", 3'000'000}};
  // Change 2 arrives twice; the later arrival is a duplicate, not a second delay.
  const std::vector<Arrival> arrivals = {
      {1, 1'250'000}, {2, 4'000'000}, {3, 3'500'000}, {2, 9'000'000}};
  const FreshnessSummary s = Summarize(changes, arrivals);
  EXPECT_EQ(s.changes, 3);
  EXPECT_EQ(s.seen, 3);
  EXPECT_EQ(s.lost, 0);
  EXPECT_EQ(s.superseded, 0);
  EXPECT_EQ(s.duplicates, 1);
  EXPECT_EQ(s.unmatched, 0);
  // Delays 250, 2000 and 500 ms.
  EXPECT_DOUBLE_EQ(s.p50_ms, 500);
  EXPECT_DOUBLE_EQ(s.p99_ms, 2000);
  EXPECT_DOUBLE_EQ(s.max_ms, 2000);
}

TEST(Summarize, TheEarliestArrivalOfAVersionCountsWhateverTheOrderOfTheList) {
  const std::vector<Change> changes = {{7, "fr0/a", 0}};
  const FreshnessSummary s = Summarize(changes, {{7, 900'000}, {7, 300'000}});
  EXPECT_EQ(s.seen, 1);
  EXPECT_EQ(s.duplicates, 1);
  EXPECT_DOUBLE_EQ(s.max_ms, 300);
}

TEST(Summarize, AnUnseenChangeIsSupersededOnlyWhenALaterChangeOfItsRowArrived) {
  const std::vector<Change> changes = {
      {1, "fr0/a", 0},  // overwritten by 3 before a poll: superseded
      {2, "fr0/b", 0},  // row b: only this change, never seen: lost
      {3, "fr0/a", 0},  // seen
      {4, "fr1/c", 0},  // seen
      {5, "fr1/c", 0},  // the last change of row c, never seen: lost (an earlier one arrived)
  };
  const std::vector<Arrival> arrivals = {{3, 1000}, {4, 2000}, {99, 5000}};
  const FreshnessSummary s = Summarize(changes, arrivals);
  EXPECT_EQ(s.changes, 5);
  EXPECT_EQ(s.seen, 2);
  EXPECT_EQ(s.superseded, 1);
  EXPECT_EQ(s.lost, 2);
  EXPECT_EQ(s.unmatched, 1);  // sequence 99 belongs to no change
  EXPECT_EQ(s.duplicates, 0);
}

TEST(Summarize, NothingSeenGivesZeroDelaysAndEveryChangeLost) {
  const FreshnessSummary s = Summarize({{1, "fr0/a", 10}, {2, "fr0/b", 20}}, {});
  EXPECT_EQ(s.seen, 0);
  EXPECT_EQ(s.lost, 2);
  EXPECT_DOUBLE_EQ(s.p50_ms, 0);
  EXPECT_DOUBLE_EQ(s.max_ms, 0);
}

}  // namespace
}  // namespace snowcar::bench
