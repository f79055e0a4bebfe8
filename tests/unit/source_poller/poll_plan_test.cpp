// SPDX-License-Identifier: Apache-2.0
// The keyset state machine alone: query sequences, HI, start point, overlap rewinds,
// hidden-row (ACL) handling, over a simulated table.
#include "source/rows/poll_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>

#include "sim_table.h"
#include "source/rows/page_request.h"

namespace snowcar::source {
namespace {

using testing::Id;
using testing::SimRow;
using testing::SimTable;

using testing::kT0;

struct SweepLog {
  std::vector<std::string> queries;
  std::vector<SimRow> rows;
  Status status;
};

// Drives one sweep of `plan` against `table` at `now_ms`; stops after `max_steps`.
SweepLog RunSweep(PollPlan& plan, const SimTable& table, int64_t now_ms, int max_steps = 10000) {
  SweepLog log;
  plan.BeginSweep(now_ms);
  for (int step = 0; plan.in_sweep(); ++step) {
    if (step >= max_steps) {
      log.status = Status::Internal("sweep did not end");
      return log;
    }
    const PlannedQuery q = plan.Next();
    log.queries.push_back(DescribeQuery(q));
    if (q.count) {
      if (Status s = plan.OnCount(table.Count(q)); !s.ok()) {
        log.status = s;
        return log;
      }
      continue;
    }
    const auto page = table.Page(q, plan.settings().limit);
    for (const SimRow& r : page) {
      if (Status s = plan.Accept(r.ts, r.sys_id); !s.ok()) {
        log.status = s;
        return log;
      }
      log.rows.push_back(r);
    }
    // A page that asked for its X-Total-Count gets it, counted the way the table counts.
    PlannedQuery as_count = q;
    as_count.with_total = false;
    const std::optional<int64_t> total =
        q.with_total ? std::optional<int64_t>(table.Count(as_count)) : std::nullopt;
    if (Status s = plan.OnPage(page.size(), total); !s.ok()) {
      log.status = s;
      return log;
    }
  }
  return log;
}

PlanSettings Settings(int limit, int64_t overlap = 2) {
  PlanSettings s;
  s.start_ts = kT0;
  s.overlap_seconds = overlap;
  s.safety_lag_seconds = 1;
  s.limit = limit;
  s.poll_interval_ms = 1000;
  return s;
}

// Up to max_rows - 1 distinct rows spread over 1 to 12 seconds from kT0; the random tests draw
// their tables here so each round's layout follows from the seed alone.
SimTable RandomRows(std::mt19937_64& rng, uint64_t max_rows) {
  SimTable t;
  const auto n = rng() % max_rows;
  const uint64_t seconds = 1 + rng() % 12;
  std::set<std::pair<int64_t, std::string>> seen;
  for (uint64_t i = 0; i < n; ++i) {
    SimRow r{kT0 + static_cast<int64_t>(rng() % seconds), testing::SpreadId(rng() % 100000)};
    if (seen.insert({r.ts, r.sys_id}).second) t.rows.push_back(r);
  }
  return t;
}

// What a complete sweep of t must produce: its readable rows, each once, in (ts, sys_id) order.
std::vector<SimRow> ReadableInOrder(const SimTable& t) {
  std::vector<SimRow> readable;
  for (const SimRow& r : t.rows) {
    if (!t.hidden(r)) readable.push_back(r);
  }
  std::sort(readable.begin(), readable.end());
  return readable;
}

std::string MoveOn(int64_t a, int64_t hi) {
  return "moveon(" + FormatSnowTimestamp(a) + "," + FormatSnowTimestamp(hi) + "]";
}
std::string Drain(int64_t t, const std::string& after) {
  return "drain " + FormatSnowTimestamp(t) + " >\"" + after + "\"";
}
std::string Keyset(int64_t t, const std::string& after, int64_t hi) {
  return "keyset " + FormatSnowTimestamp(t) + " >\"" + after + "\" .." + FormatSnowTimestamp(hi) +
         "]";
}

TEST(PollPlan, FirstQueryStartsJustBeforeTheStartTimestamp) {
  PollPlan plan(Settings(10));
  EXPECT_EQ(plan.StartPoint().ts, kT0 - 1);
  plan.BeginSweep((kT0 + 100) * 1000 + 500);
  ASSERT_TRUE(plan.in_sweep());
  // HI = second(now - 1 s) = kT0 + 99; rows stamped exactly kT0 are included (ts > kT0 - 1).
  EXPECT_EQ(DescribeQuery(plan.Next()), MoveOn(kT0 - 1, kT0 + 99));
}

TEST(PollPlan, FullPageReadsOnWithOneKeysetQuery) {
  SimTable t;
  for (int i = 0; i < 5; ++i) t.rows.push_back({kT0 + 10, Id(i + 1)});
  t.rows.push_back({kT0 + 11, Id(1)});
  t.rows.push_back({kT0 + 11, Id(2)});
  PollPlan plan(Settings(3));
  const int64_t now = (kT0 + 20) * 1000;
  SweepLog log = RunSweep(plan, t, now);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  const int64_t hi = kT0 + 19;
  // One request per full page; the short page at the end is confirmed the counting way.
  EXPECT_THAT(log.queries,
              ::testing::ElementsAre(MoveOn(kT0 - 1, hi),                // 3 rows: full
                                     Keyset(kT0 + 10, Id(3), hi),        // 3 rows: full
                                     Keyset(kT0 + 11, Id(1), hi),        // 1 row: short
                                     Drain(kT0 + 11, Id(2)) + " count",  // 0: 11 done
                                     MoveOn(kT0 + 11, hi),               // empty
                                     MoveOn(kT0 + 11, hi) + " count"));  // 0: sweep done
  t.Sort();
  EXPECT_EQ(log.rows, t.rows);
  EXPECT_EQ(plan.FinishSweep(now), state::Phase::kStream);
}

// The deletes stream flags the deletions of a second split over two pages; after a full page
// the plan goes on with a keyset query, which continues that second just as a drain does.
TEST(PollPlan, DrainAndKeysetQueriesContinueTheirSecondAMoveOnNone) {
  EXPECT_EQ(ContinuedSecond({.shape = QueryShape::kDrain, .drain_ts = kT0 + 10}), kT0 + 10);
  EXPECT_EQ(
      ContinuedSecond({.shape = QueryShape::kKeyset, .hi_ts = kT0 + 19, .drain_ts = kT0 + 10}),
      kT0 + 10);
  EXPECT_EQ(ContinuedSecond({.shape = QueryShape::kMoveOn, .after_ts = kT0, .hi_ts = kT0 + 19}),
            std::nullopt);
}

// Phase stream: every page asks for its own X-Total-Count, and a page whose count equals its
// rows finishes its range, so the same table takes three requests instead of six.
TEST(PollPlan, InPhaseStreamAPageThatHoldsItsWholeCountFinishesItsRange) {
  SimTable t;
  for (int i = 0; i < 5; ++i) t.rows.push_back({kT0 + 10, Id(i + 1)});
  t.rows.push_back({kT0 + 11, Id(1)});
  t.rows.push_back({kT0 + 11, Id(2)});
  PollPlan plan(Settings(3));
  plan.Restore(state::Cursor{kT0 - 1, "", state::Phase::kStream});
  SweepLog log = RunSweep(plan, t, (kT0 + 20) * 1000);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  const int64_t hi = kT0 + 19;
  EXPECT_THAT(log.queries,
              ::testing::ElementsAre(MoveOn(kT0 - 1, hi) + " +total",            // 3 of 7
                                     Keyset(kT0 + 10, Id(3), hi) + " +total",    // 3 of 4
                                     Keyset(kT0 + 11, Id(1), hi) + " +total"));  // 1 of 1
  t.Sort();
  EXPECT_EQ(log.rows, t.rows);
}

// A parallel backfill's range, counted by the cut: its last pages ask for their own count,
// so the page that reaches the range's end proves it. Without the count the same range ends
// with a count of the short page's last second, an empty move-on page and its count.
TEST(PollPlan, ACountedRangeEndsOnThePageThatHoldsItsLastRow) {
  SimTable t;
  for (int i = 0; i < 5; ++i) t.rows.push_back({kT0 + 10, Id(i + 1)});
  t.rows.push_back({kT0 + 11, Id(1)});
  t.rows.push_back({kT0 + 11, Id(2)});
  const int64_t now = (kT0 + 20) * 1000;
  const int64_t hi = kT0 + 19;
  PollPlan plan(Settings(3, /*overlap=*/0));
  plan.ExpectRows(7);
  SweepLog log = RunSweep(plan, t, now);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_THAT(log.queries,
              ::testing::ElementsAre(MoveOn(kT0 - 1, hi),                        // 7 left: no
                                     Keyset(kT0 + 10, Id(3), hi) + " +total",    // 3 of 4
                                     Keyset(kT0 + 11, Id(1), hi) + " +total"));  // 1 of 1
  t.Sort();
  EXPECT_EQ(log.rows, t.rows);

  // Rows a whole number of pages: the last full page is the last request.
  SimTable six = t;
  six.rows.pop_back();
  PollPlan exact(Settings(3, /*overlap=*/0));
  exact.ExpectRows(6);
  log = RunSweep(exact, six, now);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_THAT(log.queries, ::testing::ElementsAre(MoveOn(kT0 - 1, hi) + " +total",  // 3 of 6
                                                  Keyset(kT0 + 10, Id(3), hi) + " +total"));
  EXPECT_EQ(log.rows, six.rows);

  // Nothing counted (a range resumed from the store): the tail takes the counting path.
  PollPlan uncounted(Settings(3, /*overlap=*/0));
  log = RunSweep(uncounted, t, now);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.queries.size(), 6u);
  EXPECT_EQ(log.rows, t.rows);
}

// The count is from before the range was read: rows deleted or moved on since make it too
// high, rows hidden by an ACL may or may not be in it. Either way every readable row is read,
// once, in order; a wrong count costs requests, never rows.
TEST(PollPlan, ACountedRangeWhoseCountIsOffStillReadsEveryRow) {
  std::mt19937_64 rng(4242);
  for (int round = 0; round < 300; ++round) {
    SimTable t = RandomRows(rng, 60);
    if (round % 3 == 1) {
      t.hidden = [](const SimRow& r) { return r.sys_id < "6"; };
      t.count_readable_only = rng() % 2 == 0;
    }
    const int limit = 1 + static_cast<int>(rng() % 7);
    PollPlan plan(Settings(limit, /*overlap=*/0));
    plan.ExpectRows(static_cast<int64_t>(t.rows.size()) + static_cast<int64_t>(rng() % 9) - 4);
    SweepLog log = RunSweep(plan, t, (kT0 + 30) * 1000);
    ASSERT_TRUE(log.status.ok()) << "round " << round << ": " << log.status.ToString();
    ASSERT_EQ(log.rows, ReadableInOrder(t)) << "round " << round << " limit " << limit;
  }
}

// The idle poll: the overlap re-read runs to the high-water mark and counts itself, so a
// caught-up table costs one request per poll, rows in the overlap or not.
TEST(PollPlan, IdlePollInPhaseStreamIsOneRequest) {
  SimTable t;
  t.rows.push_back({kT0 + 40, Id(1)});
  PollPlan plan(Settings(10, /*overlap=*/2));
  plan.Restore(state::Cursor{kT0 + 40, Id(1), state::Phase::kStream});
  for (int poll = 0; poll < 3; ++poll) {
    SweepLog log = RunSweep(plan, t, (kT0 + 61 + poll) * 1000);
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    EXPECT_THAT(log.queries, ::testing::ElementsAre(MoveOn(kT0 + 37, kT0 + 60 + poll) + " +total"));
    EXPECT_EQ(log.rows.size(), 1u);
    plan.RewindForIdleWake();
  }
  // Nothing in the overlap either: the empty page's total (0) confirms it.
  PollPlan empty(Settings(10, /*overlap=*/2));
  empty.Restore(state::Cursor{kT0 + 50, Id(1), state::Phase::kStream});
  SweepLog log = RunSweep(empty, t, (kT0 + 61) * 1000);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_THAT(log.queries, ::testing::ElementsAre(MoveOn(kT0 + 47, kT0 + 60) + " +total"));
}

// A row hidden inside the overlap: the page's count does not match its rows, and the plan
// goes on exactly as without its own count (count, bisection, re-read as docs/source.md says).
TEST(PollPlan, InPhaseStreamHiddenRowsStillTakeTheCountingPath) {
  for (bool readable_only : {false, true}) {
    SimTable t;
    t.rows.push_back({kT0 + 40, Id(1)});
    t.rows.push_back({kT0 + 40, Id(2)});
    t.rows.push_back({kT0 + 41, Id(3)});
    t.hidden = [](const SimRow& r) { return r.sys_id == Id(2); };
    t.count_readable_only = readable_only;
    PollPlan plan(Settings(10, /*overlap=*/2));
    plan.Restore(state::Cursor{kT0 + 41, Id(3), state::Phase::kStream});
    SweepLog log = RunSweep(plan, t, (kT0 + 61) * 1000);
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    EXPECT_EQ(log.rows, (std::vector<SimRow>{{kT0 + 40, Id(1)}, {kT0 + 41, Id(3)}}));
    if (readable_only) {
      EXPECT_EQ(log.queries.size(), 1u);  // 2 readable rows counted, 2 on the page
    } else {
      EXPECT_GT(log.queries.size(), 1u);  // 3 counted, 2 on the page: not done yet
    }
  }
}

TEST(PollPlan, SecondHoldingManyPagesIsReadCompletelyOnce) {
  SimTable t;
  for (int i = 0; i < 47; ++i) t.rows.push_back({kT0 + 5, Id(1000 + i * 7)});
  PollPlan plan(Settings(4));
  SweepLog log = RunSweep(plan, t, (kT0 + 10) * 1000);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  t.Sort();
  EXPECT_EQ(log.rows, t.rows);
}

TEST(PollPlan, RowsInsideTheSafetyLagWaitForALaterSweep) {
  SimTable t;
  t.rows.push_back({kT0 + 8, Id(1)});
  t.rows.push_back({kT0 + 9, Id(2)});   // second of server_now - 1 s: included
  t.rows.push_back({kT0 + 10, Id(3)});  // the current second: held back
  PollPlan plan(Settings(10));
  SweepLog first = RunSweep(plan, t, (kT0 + 10) * 1000 + 400);
  ASSERT_TRUE(first.status.ok());
  EXPECT_EQ(first.rows, (std::vector<SimRow>{{kT0 + 8, Id(1)}, {kT0 + 9, Id(2)}}));
  EXPECT_EQ(plan.hi(), kT0 + 9);
  SweepLog second = RunSweep(plan, t, (kT0 + 11) * 1000 + 10);
  EXPECT_EQ(second.rows, (std::vector<SimRow>{{kT0 + 10, Id(3)}}));
}

TEST(PollPlan, HighWaterMarkFollowsTheServerClockNotOurs) {
  PollPlan plan(Settings(10));
  plan.BeginSweep((kT0 + 3600) * 1000);  // an instance clock an hour ahead of any local one
  EXPECT_EQ(plan.hi(), kT0 + 3599);
}

TEST(PollPlan, NothingToReadWhenAlreadyAtTheHighWaterMark) {
  PollPlan plan(Settings(10));
  plan.BeginSweep((kT0 - 5) * 1000);  // the server clock is before the start timestamp
  EXPECT_FALSE(plan.in_sweep());
}

TEST(PollPlan, RestoreRewindsByTheOverlapButNeverBelowTheStartPoint) {
  PollPlan plan(Settings(10, /*overlap=*/2));
  plan.Restore(state::Cursor{kT0 + 50, Id(9), state::Phase::kStream});
  plan.BeginSweep((kT0 + 100) * 1000);
  // (T - overlap, "") = nothing of second T-2 read: ts > T - 3. Phase stream: the page asks
  // for its own X-Total-Count.
  EXPECT_EQ(DescribeQuery(plan.Next()), MoveOn(kT0 + 47, kT0 + 99) + " +total");
  EXPECT_EQ(plan.phase(), state::Phase::kStream);

  PollPlan near_start(Settings(10, /*overlap=*/30));
  near_start.Restore(state::Cursor{kT0 + 5, Id(1), state::Phase::kBackfill});
  near_start.BeginSweep((kT0 + 100) * 1000);
  EXPECT_EQ(DescribeQuery(near_start.Next()), MoveOn(kT0 - 1, kT0 + 99));
}

TEST(PollPlan, IdleWakeRewindsFromTheLastRowRead) {
  SimTable t;
  t.rows.push_back({kT0 + 40, Id(1)});
  PollPlan plan(Settings(10, /*overlap=*/2));
  ASSERT_TRUE(RunSweep(plan, t, (kT0 + 60) * 1000).status.ok());
  EXPECT_EQ(plan.last_row().ts, kT0 + 40);
  plan.RewindForIdleWake();
  plan.BeginSweep((kT0 + 61) * 1000);
  EXPECT_EQ(DescribeQuery(plan.Next()), MoveOn(kT0 + 37, kT0 + 60));
  // The re-read finds the row again; the plan accepts it (dedup is the poller's business).
  SweepLog log = RunSweep(plan, t, (kT0 + 61) * 1000);
  EXPECT_EQ(log.rows.size(), 1u);
}

// A re-read that no longer finds the last row (updated past HI, or deleted) ends on an
// earlier one; the next idle wake still rewinds from the furthest row read, which is where
// the cursor stands and what the dedup index's pruning keeps its overlap for.
TEST(PollPlan, IdleWakeNeverRewindsBehindTheFurthestRowRead) {
  SimTable t;
  t.rows = {{kT0 + 38, Id(1)}, {kT0 + 40, Id(2)}, {kT0 + 42, Id(3)}};
  PollPlan plan(Settings(10, /*overlap=*/2));
  ASSERT_TRUE(RunSweep(plan, t, (kT0 + 60) * 1000).status.ok());
  t.rows.pop_back();  // row 3 moves past the high-water mark
  plan.RewindForIdleWake();
  SweepLog log = RunSweep(plan, t, (kT0 + 61) * 1000);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  ASSERT_FALSE(log.queries.empty());
  EXPECT_EQ(log.queries.front(), MoveOn(kT0 + 39, kT0 + 60));
  EXPECT_EQ(plan.last_row().ts, kT0 + 40);
  plan.RewindForIdleWake();
  plan.BeginSweep((kT0 + 62) * 1000);
  EXPECT_EQ(DescribeQuery(plan.Next()), MoveOn(kT0 + 39, kT0 + 61));
}

TEST(PollPlan, OverlapZeroResumesInTheMiddleOfASecond) {
  SimTable t;
  for (int i = 1; i <= 6; ++i) t.rows.push_back({kT0 + 30, Id(i)});
  PollPlan plan(Settings(10, /*overlap=*/0));
  plan.Restore(state::Cursor{kT0 + 30, Id(3), state::Phase::kBackfill});
  plan.BeginSweep((kT0 + 40) * 1000);
  EXPECT_EQ(DescribeQuery(plan.Next()), Drain(kT0 + 30, Id(3)) + " +total");  // one second: counted
  SweepLog log = RunSweep(plan, t, (kT0 + 40) * 1000);
  ASSERT_TRUE(log.status.ok());
  // The rest of second T is read, not skipped (the reference would skip it).
  EXPECT_EQ(log.rows,
            (std::vector<SimRow>{{kT0 + 30, Id(4)}, {kT0 + 30, Id(5)}, {kT0 + 30, Id(6)}}));
}

TEST(PollPlan, OverlapZeroCursorAtWholeSecondMovesOnFromTheSecondBefore) {
  PollPlan plan(Settings(10, /*overlap=*/0));
  plan.Restore(state::Cursor{kT0 + 30, "", state::Phase::kBackfill});
  plan.BeginSweep((kT0 + 40) * 1000);
  EXPECT_EQ(DescribeQuery(plan.Next()), MoveOn(kT0 + 29, kT0 + 39));
}

TEST(PollPlan, RowNotStrictlyAfterThePositionIsRefused) {
  PollPlan plan(Settings(10));
  plan.BeginSweep((kT0 + 40) * 1000);
  ASSERT_TRUE(plan.Accept(kT0 + 5, Id(2)).ok());
  Status s = plan.Accept(kT0 + 5, Id(1));  // ORDERBY ignored
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("strictly after"));
  EXPECT_THAT(s.message(), ::testing::HasSubstr(Id(1)));
  EXPECT_THAT(s.message(), ::testing::HasSubstr("UTC"));
  Status beyond = plan.Accept(kT0 + 45, Id(3));  // past HI
  EXPECT_EQ(beyond.code(), StatusCode::kFailedPrecondition);
}

TEST(PollPlan, FullPageOfUnusableRowsFails) {
  PollPlan plan(Settings(3));
  plan.BeginSweep((kT0 + 40) * 1000);
  Status s = plan.OnPage(3);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("full page"));
}

TEST(PollPlan, EmptyPageWithHiddenRowsSkipsThemAfterACountAndAReRead) {
  SimTable t;
  t.rows.push_back({kT0 + 3, Id(1)});
  t.rows.push_back({kT0 + 4, Id(2)});
  t.rows.push_back({kT0 + 9, Id(3)});
  t.hidden = [](const SimRow& r) { return r.sys_id != Id(3); };
  PollPlan plan(Settings(2));
  SweepLog log = RunSweep(plan, t, (kT0 + 20) * 1000);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.rows, (std::vector<SimRow>{{kT0 + 9, Id(3)}}));
  // The first page (limit 2) held only hidden rows: count 3 > 2, so the range was split.
  EXPECT_EQ(log.queries[0], MoveOn(kT0 - 1, kT0 + 19));
  EXPECT_EQ(log.queries[1], MoveOn(kT0 - 1, kT0 + 19) + " count");
  EXPECT_EQ(log.queries[2], MoveOn(kT0 - 1, kT0 + 9));
}

TEST(PollPlan, HiddenBlockInsideOneSecondIsBisectedBySysId) {
  SimTable t;
  for (int i = 0; i < 40; ++i) t.rows.push_back({kT0 + 7, testing::SpreadId(i)});
  const std::string visible = "ffff" + Id(1).substr(4);  // sorts after every hidden id
  t.rows.push_back({kT0 + 7, visible});
  t.hidden = [visible](const SimRow& r) { return r.sys_id != visible; };
  for (CountReading reading : {CountReading::kIncludesHidden, CountReading::kUnknown}) {
    SCOPED_TRACE(std::string(CountReadingName(reading)));
    PollPlan plan(Settings(5));
    plan.set_count_reading(reading);
    SweepLog log = RunSweep(plan, t, (kT0 + 20) * 1000);
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    EXPECT_EQ(log.rows, (std::vector<SimRow>{{kT0 + 7, visible}}));
    // Splitting 41 ids into ranges of at most 5 takes a few dozen requests, not hundreds.
    // Before the count's reading is known, the all-hidden ranges are narrowed once to learn
    // it, which costs more, once.
    std::printf("[ figures ] reading %s: %zu requests\n",
                std::string(CountReadingName(reading)).c_str(), log.queries.size());
    EXPECT_LT(log.queries.size(), reading == CountReading::kUnknown ? 200u : 120u);
  }
}

// The table: 250 unreadable rows first in order, then 50 readable ones, pages of
// 100. Whichever rows X-Total-Count counts, all 50 arrive in one sweep.
SimTable HiddenFrontTable(bool count_readable_only, bool one_second) {
  SimTable t;
  t.count_readable_only = count_readable_only;
  for (int i = 0; i < 300; ++i) {
    const int64_t ts = one_second ? kT0 + 5 : kT0 + 1 + i / 30;
    t.rows.push_back({ts, one_second ? testing::SpreadId(i) : Id(static_cast<uint64_t>(i))});
  }
  t.Sort();
  std::set<std::string> readable;
  for (size_t i = 250; i < t.rows.size(); ++i) readable.insert(t.rows[i].sys_id);
  t.hidden = [readable](const SimRow& r) { return readable.count(r.sys_id) == 0; };
  return t;
}

TEST(PollPlan, HiddenRowsInFrontAreSkippedWhenTheCountIncludesThem) {
  for (bool one_second : {false, true}) {
    SCOPED_TRACE(one_second ? "all in one second" : "spread over ten seconds");
    SimTable t = HiddenFrontTable(/*count_readable_only=*/false, one_second);
    PollPlan plan(Settings(100));
    SweepLog log = RunSweep(plan, t, (kT0 + 60) * 1000);
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    EXPECT_EQ(log.rows.size(), 50u);
    EXPECT_EQ(log.rows.front(), t.rows[250]);
    EXPECT_EQ(plan.count_reading(), CountReading::kIncludesHidden);
    // Learning the reading costs one deep narrowing; the next read of the table does not.
    plan.Restore(std::nullopt);
    SweepLog again = RunSweep(plan, t, (kT0 + 60) * 1000);
    std::printf("[ figures ] includes hidden: %zu requests learning, %zu after\n",
                log.queries.size(), again.queries.size());
    EXPECT_EQ(again.rows.size(), 50u);
    EXPECT_LT(log.queries.size(), 150u);
    EXPECT_LT(again.queries.size(), 40u);
  }
}

TEST(PollPlan, HiddenRowsInFrontAreSkippedWhenTheCountLeavesThemOut) {
  for (bool one_second : {false, true}) {
    SCOPED_TRACE(one_second ? "all in one second" : "spread over ten seconds");
    SimTable t = HiddenFrontTable(/*count_readable_only=*/true, one_second);
    PollPlan plan(Settings(100));
    SweepLog log = RunSweep(plan, t, (kT0 + 60) * 1000);
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    ASSERT_EQ(log.rows.size(), 50u) << "the readable rows behind the hidden ones were skipped";
    EXPECT_EQ(log.rows.front(), t.rows[250]);
    EXPECT_EQ(plan.count_reading(), CountReading::kReadableOnly);
    std::printf("[ figures ] readable only: %zu requests\n", log.queries.size());
    EXPECT_LT(log.queries.size(), 60u);
  }
}

// Once the count is known to leave hidden rows out, readable rows that cannot be reached
// (a second of ids that cannot be split, a page of hidden ones in front) stop the table
// with a message instead of being skipped.
TEST(PollPlan, UnreachableReadableRowsFailLoudlyUnderTheReadableOnlyReading) {
  SimTable t;
  t.count_readable_only = true;
  for (int i = 0; i < 5; ++i) t.rows.push_back({kT0 + 3, "row-" + std::to_string(i)});
  t.hidden = [](const SimRow& r) { return r.sys_id != "row-4"; };
  PollPlan plan(Settings(3));
  plan.set_count_reading(CountReading::kReadableOnly);
  SweepLog log = RunSweep(plan, t, (kT0 + 20) * 1000);
  EXPECT_EQ(log.status.code(), StatusCode::kFailedPrecondition) << log.status.ToString();
  EXPECT_THAT(log.status.message(), ::testing::HasSubstr("cannot be split"));
  EXPECT_TRUE(log.rows.empty());
}

// A "readable only" reading learned by mistake (a row arrived while a range was narrowed)
// on an instance whose count includes hidden rows: the split runs down to one counted id,
// which cannot hide behind a page, and the reading is corrected instead of looping.
TEST(PollPlan, AMistakenReadableOnlyReadingIsCorrectedByASingleCountedId) {
  SimTable t;
  t.rows.push_back({kT0 + 3, testing::SpreadId(7)});
  t.hidden = [](const SimRow&) { return true; };
  PollPlan plan(Settings(5));
  plan.set_count_reading(CountReading::kReadableOnly);
  SweepLog log = RunSweep(plan, t, (kT0 + 20) * 1000);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_TRUE(log.rows.empty());
  EXPECT_EQ(plan.count_reading(), CountReading::kIncludesHidden);
  // 128 halvings of the sys_id space, once: about 530 requests.
  EXPECT_LT(log.queries.size(), 600u);
}

// Hidden rows alone under the "includes hidden" reading: the plan learns the reading once,
// then an all-hidden range costs a count and a re-read again, not a narrowing.
TEST(PollPlan, AllHiddenRangesTeachTheIncludesHiddenReadingOnce) {
  SimTable t;
  t.rows.push_back({kT0 + 3, testing::SpreadId(1)});
  t.rows.push_back({kT0 + 4, testing::SpreadId(2)});
  t.hidden = [](const SimRow&) { return true; };
  PollPlan plan(Settings(5000));
  SweepLog first = RunSweep(plan, t, (kT0 + 10) * 1000);
  ASSERT_TRUE(first.status.ok()) << first.status.ToString();
  EXPECT_TRUE(first.rows.empty());
  EXPECT_EQ(plan.count_reading(), CountReading::kIncludesHidden);
  EXPECT_LT(first.queries.size(), 60u);
  plan.Restore(std::nullopt);
  SweepLog again = RunSweep(plan, t, (kT0 + 10) * 1000);
  ASSERT_TRUE(again.status.ok());
  EXPECT_EQ(again.queries.size(), 3u);  // the empty page, its count, the re-read
}

// Every visible row exactly once, in order, whatever the page size, ACL and layout.
TEST(PollPlan, RandomTablesAreReadCompletelyInOrderWithoutRepeats) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 200; ++round) {
    SimTable t = RandomRows(rng, 120);
    const int hide_mode = static_cast<int>(rng() % 3);
    const uint64_t k = 2 + rng() % 4;
    if (hide_mode == 1) {
      t.hidden = [k](const SimRow& r) { return std::hash<std::string>()(r.sys_id) % k == 0; };
    } else if (hide_mode == 2) {
      t.hidden = [](const SimRow& r) { return r.sys_id < "a"; };  // big blocks
    }
    t.count_readable_only = rng() % 2 == 0;
    const int limit = 1 + static_cast<int>(rng() % 7);
    PollPlan plan(Settings(limit));
    // Half the rounds in phase stream, where each page also asks for its own count.
    if (round % 2 == 1) plan.Restore(state::Cursor{kT0 - 1, "", state::Phase::kStream});
    SweepLog log = RunSweep(plan, t, (kT0 + 30) * 1000);
    ASSERT_TRUE(log.status.ok()) << "round " << round << ": " << log.status.ToString();
    ASSERT_EQ(log.rows, ReadableInOrder(t)) << "round " << round << " limit " << limit;
  }
}

TEST(PollPlan, LongSweepMeansBackfillShortMeansStream) {
  PollPlan plan(Settings(10));
  plan.BeginSweep((kT0 + 100) * 1000);
  EXPECT_EQ(plan.hi(), kT0 + 99);
  // Ended 0.5 s later: within one poll interval (1 s) of the lagged clock.
  EXPECT_EQ(plan.FinishSweep((kT0 + 101) * 1000 + 500), state::Phase::kStream);
  plan.BeginSweep((kT0 + 100) * 1000);
  EXPECT_EQ(plan.FinishSweep((kT0 + 130) * 1000), state::Phase::kBackfill);
}

TEST(MiddleSysId, SplitsTheHexRange) {
  EXPECT_EQ(MiddleSysId("", ""), "7fffffffffffffffffffffffffffffff");
  EXPECT_EQ(MiddleSysId(Id(0), Id(4)), Id(2));
  EXPECT_EQ(MiddleSysId(Id(3), Id(4)), std::nullopt);  // only Id(4) lies in (3, 4]
  EXPECT_EQ(MiddleSysId("not-hex", ""), std::nullopt);
}

TEST(PageRequest, BoundTermGoesIntoEveryBranchBeforeOrderBy) {
  EXPECT_EQ(AddTermToEveryBranch("a=1^ts=X^NQb=2^ts=X^ORDERBYsys_id", "sys_id<=f"),
            "a=1^ts=X^sys_id<=f^NQb=2^ts=X^sys_id<=f^ORDERBYsys_id");
  EXPECT_EQ(AddTermToEveryBranch("ts=X^ORDERBYsys_id", "sys_id<=f"),
            "ts=X^sys_id<=f^ORDERBYsys_id");
}

TEST(PageRequest, CountRequestsAskForOneRowAndTheTotal) {
  TableSettings table;
  table.alias = "inc";
  table.name = "incident";
  table.batch_size = 50;
  table.base_query = "active=true^NQpriority=1";
  PlannedQuery q;
  q.shape = QueryShape::kMoveOn;
  q.after_ts = kT0;
  q.hi_ts = kT0 + 10;
  const std::string page = PageTargetFor(table, q);
  EXPECT_THAT(page, ::testing::HasSubstr("sysparm_limit=50"));
  EXPECT_THAT(page, ::testing::HasSubstr("sysparm_no_count=true"));
  EXPECT_THAT(page, ::testing::Not(::testing::HasSubstr("sysparm_offset")));
  const auto params = SimTable::Params(page);
  // ^NQ: the cursor terms in every branch, ORDERBY once at the end.
  EXPECT_EQ(params.at("sysparm_query"),
            "active=true^sys_updated_on>2026-01-01 00:00:00^sys_updated_on<=2026-01-01 00:00:10"
            "^NQpriority=1^sys_updated_on>2026-01-01 00:00:00^sys_updated_on<=2026-01-01 "
            "00:00:10^ORDERBYsys_updated_on^ORDERBYsys_id");
  q.count = true;
  const std::string count = PageTargetFor(table, q);
  EXPECT_THAT(count, ::testing::HasSubstr("sysparm_limit=1&"));
  EXPECT_THAT(count, ::testing::HasSubstr("sysparm_no_count=false"));
}

}  // namespace
}  // namespace snowcar::source
