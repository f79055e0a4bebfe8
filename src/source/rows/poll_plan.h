// SPDX-License-Identifier: Apache-2.0
// The keyset state machine of one table's poller (reference-behaviour section 2), free of
// I/O so every transition is unit-testable: it says which query comes next and learns what
// each page, or the count that confirms an empty page, showed.
//
// Positions. The plan reads in (ts, sys_id) order. It is always in one of two modes:
//   move on   rows with after_ts < ts <= range_hi (every second <= after_ts is done);
//   drain     rows of second drain_ts with sys_id > after_sys_id (and <= upto_sys_id while
//             a hidden-row bisection narrows it); every second < drain_ts is done.
// A cursor (X, "") means "nothing of second X read": move on with after_ts = X - 1, never
// below the start point (start.timestamp - 1 s, ""), which reads second start.timestamp on.
//
// Pages. A page whose own X-Total-Count (asked in phase stream, see PlannedQuery::with_total)
// equals the rows it returned held every row of its range: the range is done, whatever the
// count counts (hidden rows included: none are hidden; readable only: none are missing).
// Otherwise a full move-on (or keyset) page continues with a keyset query from its last row:
// the rest of that row's second OR the seconds after it, up to HI, in one request. A keyset
// page that comes back empty is read again the two-query way below (drain, then move on), so
// hidden rows behind a full page take exactly the paths they took before. A full drain page
// (a second being bisected) keeps draining; any other non-empty page
// continues from its last row (a short page may be short only because an ACL hid rows after
// sysparm_limit was applied, so it proves nothing). After a short page the rest of its
// second is usually empty, so that continuation is counted first (one cheap count of one
// second) and only read when the count says rows remain. Only an EMPTY page can finish a
// range, and only after a count request confirms it: 0 rows -> done; more than limit ->
// bisect the range (time for move on, sys_id for a drain) until it fits a page; 1..limit
// rows -> depends on what the count counts (below).
//
// Which rows X-Total-Count counts is not documented: all rows matching the query, hidden ones
// included (reading "includes hidden"), or only the rows the user may read ("readable only").
// An empty page whose count is 1..limit means "every row was on the page and hidden" under
// the first reading, and "readable rows wait behind a page or more of hidden ones" under the
// second. The plan does not guess: it narrows such a range like one whose count exceeds a
// page, and learns the reading from what it finds. Readable rows inside the range prove
// "readable only" (narrowing is cheap then: a range of hidden rows counts 0). A range narrowed
// so far that the other reading would need more than kMaxRowsPerSecond rows in one second of
// one table proves "includes hidden", and so does a single counted id missing from its page
// (which also corrects a "readable only" learned from a row that arrived meanwhile); from
// then on such a range is done after one re-read.
//
// Sweeps. HI = second(server_now - safety_lag) is fixed when a sweep begins; the sweep ends
// when the move-on range reaches HI. docs/source.md tells the same story for operators.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source {

struct PlanSettings {
  int64_t start_ts = 0;  // .start.timestamp, seconds
  int64_t overlap_seconds = 2;
  int64_t safety_lag_seconds = 1;
  int limit = 5000;  // page size
  int64_t poll_interval_ms = 5000;
};

// kKeyset: the rest of second drain_ts after after_sys_id OR the seconds up to hi_ts, in one
// request (the happy path after a full page; see "Pages" above).
enum class QueryShape { kMoveOn, kDrain, kKeyset };

// What X-Total-Count counts on this instance, as far as the plan has learned it.
enum class CountReading { kUnknown, kIncludesHidden, kReadableOnly };
std::string_view CountReadingName(CountReading reading);

// More rows than this in one second of one table are taken as impossible: the bound that
// ends the narrowing of an ambiguous range while the count reading is unknown.
inline constexpr int64_t kMaxRowsPerSecond = 1000000;

struct PlannedQuery {
  QueryShape shape = QueryShape::kMoveOn;
  int64_t after_ts = 0;        // move on: ts > after_ts ...
  int64_t hi_ts = 0;           // ... and ts <= hi_ts (move on, keyset)
  int64_t drain_ts = 0;        // drain, keyset: ts = drain_ts ...
  std::string after_sys_id{};  // ... and sys_id > after_sys_id ...
  std::string upto_sys_id{};   // ... and sys_id <= upto_sys_id when not empty (bisection)
  bool count = false;          // a count request (limit 1, X-Total-Count) for this range
  // A page that asks X-Total-Count of its range too (phase stream: the range is a poll's
  // worth of seconds, so counting it is cheap; a counted range's last pages, see
  // PollPlan::ExpectRows). A page whose count equals its rows finishes the range; an empty
  // one takes the count as the one that confirms it.
  bool with_total = false;
  bool operator==(const PlannedQuery&) const = default;
};

// "moveon(A,HI]" / "drain T>S" / "... count": for logs and test failure messages.
std::string DescribeQuery(const PlannedQuery& query);

// The second whose first rows came in an earlier page, when the query goes on with it: a drain
// and a keyset query both continue drain_ts. The deletes stream needs it, since a second's
// audit entries split over two pages can hide a restore behind its deletion.
std::optional<int64_t> ContinuedSecond(const PlannedQuery& query);

class PollPlan {
 public:
  explicit PollPlan(PlanSettings settings);

  const PlanSettings& settings() const { return settings_; }
  // The start point: (start_ts - 1, "").
  state::Cursor StartPoint() const;

  // Where to begin: a stored cursor, or the start point. With overlap > 0 the plan rewinds
  // to (cursor.ts - overlap, ""); with overlap 0 it resumes exactly at the cursor (a stop in
  // the middle of a second drains the rest of that second first).
  void Restore(const std::optional<state::Cursor>& cursor);
  // At an idle wake: the same rewind from the furthest row read (where the cursor stands once
  // every row is acknowledged). Only between sweeps.
  void RewindForIdleWake();

  // Begins a sweep with HI = second(server_now_ms - safety lag). Afterwards in_sweep() is
  // false when there is nothing to read (the position is already at HI).
  void BeginSweep(int64_t server_now_ms);
  // The same with the high-water mark given: a parallel backfill's range ends at hi_ts.
  void BeginSweepTo(int64_t hi_ts);
  // The rows the instance counted between the position and HI just before the sweep (a
  // parallel backfill's cut counts each range). Move-on and keyset pages then ask their own
  // X-Total-Count once the rows left by that count fit in two pages, so the page that reaches
  // HI proves it (its count equals its rows) instead of a count of its last second's rest, an
  // empty move-on page and the count confirming that. A count that no longer holds (rows
  // deleted or moved on since) only means the usual path. Cleared by Restore.
  void ExpectRows(int64_t rows) {
    expected_rows_ = rows < 0 ? 0 : rows;
    rows_read_ = 0;
  }
  bool in_sweep() const { return in_sweep_; }
  int64_t hi() const { return hi_; }

  // The request to send next. REQUIRES: in_sweep().
  PlannedQuery Next() const;

  // Checks one row of the page answering Next(), in page order: it must lie in the query's
  // range and sort strictly after the previous row. FailedPrecondition otherwise (the
  // message names the row, the position and the likely causes, without the table: the
  // caller adds it). An accepted row becomes the position.
  Status Accept(int64_t ts, std::string_view sys_id);
  // The page answering Next() ended after `raw_rows` rows (accepted or skipped as bad);
  // `total` is its X-Total-Count when Next() asked for one (with_total) and it came. An empty
  // page's total is handled as the count that confirms it (OnCount).
  // FailedPrecondition when a full page moved nothing (every row bad).
  Status OnPage(size_t raw_rows, std::optional<int64_t> total = std::nullopt);
  // The count answering a count request. FailedPrecondition when a second must be split
  // but its ids are not 32 hex digits.
  Status OnCount(int64_t total);

  // When a sweep has ended (in_sweep() turned false after a page or count): whether the
  // poller caught up. kStream: the sweep ended within one poll interval of the lagged server
  // clock, wait the poll interval; kBackfill: sweep again at once.
  state::Phase FinishSweep(int64_t server_now_ms);
  state::Phase phase() const { return phase_; }

  // What the instance's X-Total-Count counts, as learned so far (see the top of this file).
  CountReading count_reading() const { return reading_; }
  // Sets what is known (a reading learned by an earlier poller of the same table).
  void set_count_reading(CountReading reading) { reading_ = reading; }

  // The last row of the last page that had rows (or the restored / start point before any).
  const state::Cursor& last_row() const { return last_row_; }

 private:
  void RangeDone();
  // Splits the current range in two (time first, then sys_id) and reads the first half next.
  // `ambiguous`: the count was 1..limit (see CountReading); then a range that cannot or need
  // not be split further is done instead of an error.
  Status Split(int64_t total, bool ambiguous);
  void StartMoveOnFrom(int64_t after_ts);
  int64_t LaggedSecond(int64_t server_now_ms) const;

  PlanSettings settings_;
  state::Phase phase_ = state::Phase::kBackfill;
  state::Cursor last_row_;
  // The furthest row read since the last Restore. A re-read of the overlap can end on an
  // earlier row than the one before (that row was updated past HI, or deleted), but the cursor
  // never moves back, and a commit prunes the dedup entries below cursor - overlap: an idle
  // wake that rewound from last_row_ would re-read rows whose entries are gone.
  state::Cursor furthest_row_;

  int64_t RangeHi() const { return hi_stack_.empty() ? hi_ : hi_stack_.back(); }
  std::string DrainUpto() const { return upto_stack_.empty() ? "" : upto_stack_.back(); }

  QueryShape shape_ = QueryShape::kMoveOn;
  int64_t after_ts_ = 0;
  int64_t drain_ts_ = 0;
  std::string drain_after_;
  // Bisection: the upper bounds of the ranges still to read, innermost last. A finished
  // range continues with the next bound out, so a block of hidden rows costs a logarithmic
  // number of requests once, not once per page of it.
  std::vector<int64_t> hi_stack_;
  std::vector<std::string> upto_stack_;

  bool in_sweep_ = false;
  int64_t hi_ = 0;
  bool counting_ = false;       // Next() is the count of the current range
  bool count_first_ = false;    // ... asked before reading it (after a short page)
  bool rereading_ = false;      // the count said "all hidden": one confirming re-read
  size_t page_accepted_ = 0;    // rows accepted on the current page
  int64_t expected_rows_ = -1;  // ExpectRows; -1: nothing counted
  int64_t rows_read_ = 0;       // rows of pages since ExpectRows
  CountReading reading_ = CountReading::kUnknown;
  // The range that was split because its count was ambiguous: a row read inside it proves
  // the "readable only" reading.
  std::optional<PlannedQuery> ambiguous_range_;
  // The position the current page's rows must sort after.
  int64_t check_ts_ = 0;
  std::string check_sys_id_;
  bool page_open_ = false;
};

// The sys_id halfway between `after` (exclusive; "" = before every id) and `upto` ("" = the
// largest 32-hex id), for bisecting a second. nullopt when the ids are not 32 hex digits or
// no id lies strictly between.
std::optional<std::string> MiddleSysId(std::string_view after, std::string_view upto);

}  // namespace snowcar::source
