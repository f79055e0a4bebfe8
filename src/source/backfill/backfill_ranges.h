// SPDX-License-Identifier: Apache-2.0
// Parallel backfill, the parts free of I/O (docs/source.md, "Parallel backfill"):
//
//   RangeSplitter  cuts a backlog (lo, hi] into up to `parallelism` time ranges holding about
//                  as many rows each, by the instance's own distribution of timestamps: it asks
//                  for counts of (lo, t] (the Table API's X-Total-Count of a one-row page) and
//                  narrows each cut by interpolation, several counts per round in parallel.
//   MergedCursor   the one cursor a set of ranges stands for: the contiguous prefix of finished
//                  ranges, then the first unfinished range's acknowledged position. A restart
//                  that only had this cursor would still read every row after it: no gap.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source {

// A backlog is read in parallel only when it holds at least this many pages per range.
inline constexpr int64_t kMinPagesPerRange = 2;
// The parallel part ends this far before the sweep's high-water mark; the rest is read by the
// single sweep afterwards. Every row version written after the backfill began carries a later
// timestamp than the parallel part's end, by this margin beyond the safety lag, so no row has
// two versions inside the parallel part (the per-key order argument, docs/semantics.md).
inline constexpr int64_t kParallelMarginSeconds = 60;
// Rounds of counts before the splitter settles for the cuts it has.
inline constexpr int kMaxSplitRounds = 16;

class RangeSplitter {
 public:
  // The backlog (lo, hi], cut into at most `parallelism` ranges of `limit`-row pages.
  RangeSplitter(int64_t lo, int64_t hi, int parallelism, int limit);

  // The counts to ask for now: each a second t, to be answered with the count of rows in
  // (lo, t] through OnCount. Empty while answers of the current round are outstanding, and
  // once done().
  std::vector<int64_t> NextProbes();
  void OnCount(int64_t t, int64_t count);
  // The first row of the backlog's count answer (the count request is a one-row page in
  // timestamp order): nothing lies before its second, so no count is spent there.
  void OnFirstRow(int64_t ts);
  bool done() const { return done_; }
  // Once done(): the ranges, ordered and adjacent, covering (lo, hi]; empty when the backlog
  // is too small to be worth more than one sweep. Each starts at position (lo + 1, "").
  std::vector<state::BackfillRange> Ranges() const;
  // Once done(): the rows counted in each of Ranges() (a cut the rounds ran out on was not
  // counted: -1 for the ranges beside it).
  std::vector<int64_t> RangeRows() const;
  // Once the backlog is counted: its rows per second from its first row to hi (from lo when
  // the count brought no row). -1 before.
  double RowsPerSecond() const;
  // Whether `rows` are worth more than one sweep at pages of `limit`: at least two ranges of
  // kMinPagesPerRange pages each.
  static bool Cuttable(int64_t rows, int limit);
  int64_t total() const { return total_; }
  int rounds() const { return rounds_; }

 private:
  // The cut for target `q` rows, or nullopt when its bracket must be narrowed (then *probe is
  // the second to count next).
  std::optional<int64_t> Resolve(int64_t q, int64_t* probe) const;
  void Settle();

  int64_t lo_;
  int64_t hi_;
  int parallelism_;
  int limit_;
  std::map<int64_t, int64_t> known_;  // second t -> rows in (lo, t]
  int64_t total_ = -1;
  std::optional<int64_t>
      first_;  // the second before the backlog's first row, when its count showed one
  int ranges_ = 1;
  int outstanding_ = 0;
  int rounds_ = 0;
  bool done_ = false;
  std::vector<int64_t> cuts_;
};

// The cursor the progress merges into (see the top of this file). For an empty progress, the
// default cursor.
state::Cursor MergedCursor(const state::BackfillProgress& progress);

// OK when the ranges are ordered, adjacent, non-empty, and each position lies inside its range;
// a message naming the first fault otherwise (stored progress is checked before it is used).
Status CheckProgress(const state::BackfillProgress& progress);

}  // namespace snowcar::source
