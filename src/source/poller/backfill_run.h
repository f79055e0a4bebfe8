// SPDX-License-Identifier: Apache-2.0
// A table poller's parallel backfill while it runs (table_poller_backfill.cpp): the splitter
// while the backlog is being cut, then one sweep per range, each with its own plan, fetched
// pages and acknowledgement order. Private to the table poller's files.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "../backfill/backfill_concurrency.h"
#include "../backfill/backfill_ranges.h"
#include "../rows/poll_plan.h"
#include "snowcar/source/rows/ack_tracker.h"
#include "table_poller.h"

namespace snowcar::source {

struct TablePoller::BackfillRun {
  struct Range {
    state::BackfillRange committed;  // as last written to the state store
    state::Cursor acked;             // its acknowledged prefix, maybe not written yet
    int64_t counted_rows = -1;       // rows the cut counted in it; -1: not counted (resumed)
    std::unique_ptr<PollPlan> plan;  // overlap 0: resumes exactly at `committed.position`
    AckTracker tracker;
    std::deque<QueuedPage> pages;  // fetched, not all produced; at most two
    bool http_busy = false;
    bool read_done = false;  // the plan reached the range's end (its rows may be in flight)
  };

  uint64_t id = 0;                        // backfill_runs_ when it began
  std::optional<RangeSplitter> splitter;  // set while the backlog is being cut
  int64_t split_lo = 0;
  int64_t split_hi = 0;
  std::vector<Range> ranges;           // set once it is cut (or resumed)
  size_t next_produce = 0;             // the range ProduceBackfillQueued serves first
  bool dirty = false;                  // some range moved since the last commit
  BackfillConcurrency concurrency{0};  // set for the ranges when they start
  int64_t fastest_count_ms = 0;        // the quickest answer among the cut's counts; 0: none
  double rows_per_s = -1;              // the cut backlog's rows per second; -1: resumed

  // Fetched pages not all produced, over all ranges.
  size_t Waiting() const {
    size_t waiting = 0;
    for (const Range& r : ranges) waiting += r.pages.size();
    return waiting;
  }
};

// Tickets of range i carry i + 1 in their top bits; the main tracker's are below.
inline constexpr int kRangeTicketShift = 56;
inline constexpr AckTracker::Ticket kTicketMask = (AckTracker::Ticket{1} << kRangeTicketShift) - 1;

}  // namespace snowcar::source
