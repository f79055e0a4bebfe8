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
#pragma once

#include <algorithm>
#include <cstddef>

namespace snowcar::source {

class BackfillConcurrency {
 public:
  explicit BackfillConcurrency(size_t ranges) : max_(std::max<size_t>(1, ranges)) {}

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
