// SPDX-License-Identifier: Apache-2.0
// How many ranges of a parallel backfill may have a request out at once. Ranges interleave
// their rows in the produce and dedup windows, which costs CPU and memory, so a range is read
// beside the earlier ones only while that shortens a wait on the instance.
//
// It starts at one range. A page that arrives to find the table idle (no fetched page waiting
// to be produced, no record waiting for Kafka's acknowledgement) means the whole pipeline sat
// drained waiting for that page; two such pages in a row (the first of a backfill always
// finds the table idle) open one more range, up to all of them. A page that arrives to find
// two or more pages waiting means the table's own work is the limit: one range fewer, never
// below one. On an instance that answers faster than the table produces, a backfill
// therefore reads its ranges one after another, like one sweep; at a real instance's latency
// every range reads at once.
//
// The counts that cut the backlog already show the instance's latency: when even the fastest
// of them took kSlowCountMs or more, every range opens at once instead of one by one (the
// climb cost a page's wait per range, at 300 ms a request about a second of a backfill that
// needs a few). Pages that then find pages waiting still close ranges, as above.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace snowcar::source {

// An instance that needs this long for a count is slower than a table producing a page (tens
// of milliseconds for 5 000 rows): one range cannot keep the table busy. A local instance or
// the emulator counts in a few milliseconds.
inline constexpr int64_t kSlowCountMs = 100;

class BackfillConcurrency {
 public:
  // `fastest_count_ms`: the quickest answer among the cut's counts; 0 when none was timed (a
  // resumed backfill), which starts at one range.
  explicit BackfillConcurrency(size_t ranges, int64_t fastest_count_ms = 0)
      : max_(std::max<size_t>(1, ranges)), ranges_(fastest_count_ms >= kSlowCountMs ? max_ : 1) {}

  // A page answer arrived while `waiting` fetched pages were not all produced yet and
  // `in_flight` produced records had no acknowledgement yet.
  void OnPage(size_t waiting, size_t in_flight) {
    const bool idle = waiting == 0 && in_flight == 0;
    if (idle && idle_before_) ranges_ = std::min(ranges_ + 1, max_);
    if (waiting >= 2) ranges_ = std::max<size_t>(ranges_ - 1, 1);
    idle_before_ = idle;
  }
  // How many ranges may have a request out now.
  size_t ranges() const { return ranges_; }

 private:
  size_t max_;
  size_t ranges_ = 1;
  bool idle_before_ = false;
};

}  // namespace snowcar::source
