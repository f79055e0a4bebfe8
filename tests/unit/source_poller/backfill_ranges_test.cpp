// SPDX-License-Identifier: Apache-2.0
// Cutting a backlog into ranges by counts, and the one cursor the ranges merge into.
#include "source/backfill/backfill_ranges.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace snowcar::source {
namespace {

// Rows in (lo, t] of a sorted list of timestamps: what the instance's count answers.
int64_t CountUpTo(const std::vector<int64_t>& sorted, int64_t lo, int64_t t) {
  return std::upper_bound(sorted.begin(), sorted.end(), t) -
         std::upper_bound(sorted.begin(), sorted.end(), lo);
}

struct SplitResult {
  std::vector<state::BackfillRange> ranges;
  std::vector<int64_t> rows;  // RangeRows()
  int requests = 0;
  int rounds = 0;
};

SplitResult Split(const std::vector<int64_t>& sorted, int64_t lo, int64_t hi, int parallelism,
                  int limit) {
  RangeSplitter splitter(lo, hi, parallelism, limit);
  SplitResult out;
  while (!splitter.done()) {
    const std::vector<int64_t> probes = splitter.NextProbes();
    if (probes.empty()) break;
    for (int64_t t : probes) {
      ++out.requests;
      splitter.OnCount(t, CountUpTo(sorted, lo, t));
      if (t == hi && !sorted.empty()) splitter.OnFirstRow(sorted.front());
    }
  }
  EXPECT_TRUE(splitter.done());
  out.ranges = splitter.Ranges();
  out.rows = splitter.RangeRows();
  out.rounds = splitter.rounds();
  return out;
}

void ExpectBalanced(const std::vector<int64_t>& sorted, const SplitResult& split, int64_t lo,
                    int64_t hi, int parallelism) {
  ASSERT_EQ(split.ranges.size(), static_cast<size_t>(parallelism));
  EXPECT_EQ(split.ranges.front().lo, lo);
  EXPECT_EQ(split.ranges.back().hi, hi);
  const int64_t total = CountUpTo(sorted, lo, hi);
  for (size_t i = 0; i < split.ranges.size(); ++i) {
    const auto& r = split.ranges[i];
    EXPECT_LT(r.lo, r.hi);
    if (i > 0) {
      EXPECT_EQ(split.ranges[i - 1].hi, r.lo);
    }
    EXPECT_EQ(r.position, (state::Cursor{r.lo + 1, "", state::Phase::kBackfill}));
    const int64_t rows = CountUpTo(sorted, r.lo, r.hi);
    // Each range holds its share, give or take the splitter's tolerance (an eighth of a
    // share on each of its two cuts).
    const double share = static_cast<double>(total) / parallelism;
    EXPECT_NEAR(static_cast<double>(rows), share, share / 4 + 1) << "range " << i;
  }
  EXPECT_TRUE(CheckProgress({split.ranges}).ok());
}

// 200 000 sorted timestamps spread evenly over the week before now.
std::vector<int64_t> UniformWeek(uint64_t seed, int64_t now) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> ts(200000);
  for (auto& t : ts) t = now - 7 * 86400 + static_cast<int64_t>(rng() % (7 * 86400));
  std::sort(ts.begin(), ts.end());
  return ts;
}

TEST(RangeSplitter, UniformWeekIsCutIntoEqualShares) {
  const int64_t now = 1'800'000'000;
  const std::vector<int64_t> ts = UniformWeek(/*seed=*/7, now);
  for (int p : {2, 4, 8}) {
    const SplitResult split = Split(ts, -1, now, p, 5000);
    ExpectBalanced(ts, split, -1, now, p);
    // The first row's second bounds the search: a handful of counts, not log2(56 years).
    EXPECT_LE(split.requests, 1 + 4 * (p - 1)) << "parallelism " << p;
  }
}

// Each round of counts is a wait on the instance before any range reads a row. On an even
// spread the first round's interpolation lands within half a page of every target, and such a
// second is taken as the cut: the backlog's count and one round, nothing more.
TEST(RangeSplitter, AnEvenSpreadIsCutAfterOneRoundOfCounts) {
  const int64_t now = 1'800'000'000;
  const std::vector<int64_t> ts = UniformWeek(/*seed=*/3, now);
  for (int p : {2, 4, 8}) {
    const SplitResult split = Split(ts, -1, now, p, 5000);
    ExpectBalanced(ts, split, -1, now, p);
    EXPECT_EQ(split.rounds, 1) << "parallelism " << p;
    EXPECT_EQ(split.requests, 1 + (p - 1)) << "parallelism " << p;
    // Every range is within a page of its share, and its rows are known from the counts.
    ASSERT_EQ(split.rows.size(), split.ranges.size());
    for (size_t i = 0; i < split.ranges.size(); ++i) {
      const int64_t rows = CountUpTo(ts, split.ranges[i].lo, split.ranges[i].hi);
      EXPECT_EQ(split.rows[i], rows) << "range " << i;
      EXPECT_NEAR(static_cast<double>(rows), 200000.0 / p, 5000) << "range " << i;
    }
  }
}

TEST(RangeSplitter, SkewedTableStillSplitsByRowsNotByTime) {
  // 90 % of the rows in the last hour of a year, the rest spread thin; gaps of days.
  std::mt19937_64 rng(11);
  const int64_t now = 1'800'000'000;
  std::vector<int64_t> ts;
  for (int i = 0; i < 90000; ++i) ts.push_back(now - static_cast<int64_t>(rng() % 3600));
  for (int i = 0; i < 10000; ++i) {
    ts.push_back(now - 365 * 86400 + static_cast<int64_t>(rng() % (30 * 86400)));
  }
  std::sort(ts.begin(), ts.end());
  const SplitResult split = Split(ts, now - 400 * 86400, now, 4, 1000);
  ExpectBalanced(ts, split, now - 400 * 86400, now, 4);
}

TEST(RangeSplitter, SmallBacklogStaysOneSweep) {
  std::vector<int64_t> ts;
  for (int i = 0; i < 15000; ++i) ts.push_back(1000 + i);
  // 3 pages of 5000 at parallelism 4: fewer than two pages per range.
  EXPECT_TRUE(Split(ts, 0, 100000, 4, 5000).ranges.empty());
  // Parallelism 1 never cuts and asks nothing.
  RangeSplitter one(0, 100000, 1, 5000);
  EXPECT_TRUE(one.done());
  EXPECT_TRUE(one.NextProbes().empty());
  EXPECT_TRUE(one.Ranges().empty());
  // The same rows at page 1000 are worth two ranges of at least two pages... up to four.
  EXPECT_EQ(Split(ts, 0, 100000, 4, 1000).ranges.size(), 4u);
}

TEST(RangeSplitter, OneBusySecondCannotBeCutAndEndsAsFewerRanges) {
  std::vector<int64_t> ts(50000, 5000);  // every row in one second
  const SplitResult split = Split(ts, 0, 10000, 4, 1000);
  // A cut is a second: the busy second lands in one range, the others hold nothing.
  ASSERT_FALSE(split.ranges.empty());
  EXPECT_TRUE(CheckProgress({split.ranges}).ok());
  EXPECT_LE(split.ranges.size(), 3u);
}

state::BackfillRange Range(int64_t lo, int64_t hi) {
  return state::BackfillRange{lo, hi, state::Cursor{lo + 1, "", state::Phase::kBackfill}, false};
}

TEST(MergedCursor, AdvancesOnlyOverTheContiguousPrefixOfFinishedRanges) {
  state::BackfillProgress p{{Range(0, 100), Range(100, 200), Range(200, 300)}};
  EXPECT_EQ(MergedCursor(p), (state::Cursor{1, "", state::Phase::kBackfill}));
  // A later range finished or far ahead moves nothing while the first has not.
  p.ranges[2].done = true;
  p.ranges[1].position = {150, "b", state::Phase::kBackfill};
  EXPECT_EQ(MergedCursor(p), (state::Cursor{1, "", state::Phase::kBackfill}));
  p.ranges[0].position = {40, "a", state::Phase::kBackfill};
  EXPECT_EQ(MergedCursor(p), (state::Cursor{40, "a", state::Phase::kBackfill}));
  // The first done: the second's position; both done: past the second... up to the third.
  p.ranges[0].done = true;
  EXPECT_EQ(MergedCursor(p), (state::Cursor{150, "b", state::Phase::kBackfill}));
  p.ranges[1].done = true;
  EXPECT_EQ(MergedCursor(p), (state::Cursor{301, "", state::Phase::kBackfill}));
}

TEST(MergedCursor, AnUnstartedRangeAfterAFinishedOneStandsAtItsStart) {
  state::BackfillProgress p{{Range(0, 100), Range(100, 200)}};
  p.ranges[0].done = true;
  // (101, "") says: every row up to second 100 is in Kafka, none of 101 yet.
  EXPECT_EQ(MergedCursor(p), (state::Cursor{101, "", state::Phase::kBackfill}));
}

TEST(CheckProgress, RefusesGapsOverlapsAndPositionsOutsideTheirRange) {
  EXPECT_FALSE(CheckProgress({}).ok());
  EXPECT_TRUE(CheckProgress({{Range(0, 100), Range(100, 200)}}).ok());
  EXPECT_FALSE(CheckProgress({{Range(0, 100), Range(101, 200)}}).ok());  // gap
  EXPECT_FALSE(CheckProgress({{Range(0, 100), Range(90, 200)}}).ok());   // overlap
  EXPECT_FALSE(CheckProgress({{Range(5, 5)}}).ok());                     // empty
  state::BackfillProgress outside{{Range(0, 100)}};
  outside.ranges[0].position = {150, "x", state::Phase::kBackfill};
  EXPECT_FALSE(CheckProgress(outside).ok());
}

}  // namespace
}  // namespace snowcar::source
