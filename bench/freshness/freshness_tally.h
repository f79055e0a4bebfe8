// SPDX-License-Identifier: Apache-2.0
// The freshness bench's arithmetic, apart from its processes so a unit test can check it:
// which change each arrival belongs to, which changes never arrived, and the percentiles of
// the delays. Times are microseconds on one steady clock (the bench process's), so the
// writer's and the reader's stamps compare without any clock skew.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace snowcar::bench {

// One change the writer made: its sequence number (the value it wrote into the row's field),
// the row it changed ("table/sys_id") and when the instance's HTTP answer arrived.
struct Change {
  uint64_t seq = 0;
  std::string row;
  int64_t answered_us = 0;
};

// One record the reader saw: the sequence number read from its value, and when it arrived.
struct Arrival {
  uint64_t seq = 0;
  int64_t arrived_us = 0;
};

struct FreshnessSummary {
  int64_t changes = 0;     // changes the writer made (answered 200/201)
  int64_t seen = 0;        // changes whose own version arrived
  int64_t superseded = 0;  // not seen themselves, but a later change of the same row was:
                           // overwritten between two polls, which the Table API cannot show
  int64_t lost = 0;        // neither they nor any later change of their row arrived
  int64_t duplicates = 0;  // arrivals of a version already seen
  int64_t unmatched = 0;   // arrivals whose sequence number no change has
  // Delay from the answer to the first arrival of each seen change, in milliseconds; nearest
  // rank (the smallest delay with at least p % of the seen changes at or below it). 0 when
  // nothing was seen.
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// Nearest-rank percentile of `sorted` (ascending), p in (0, 100]: the element at rank
// ceil(p / 100 * n). 0 for an empty vector.
double NearestRank(const std::vector<int64_t>& sorted, double p);

// Matches `arrivals` to `changes` by sequence number and counts what the summary says. A
// change counts as superseded only when a later change (a higher sequence number) of the same
// row was seen; sequence numbers grow with the writer's send order, as the row's versions do.
FreshnessSummary Summarize(const std::vector<Change>& changes,
                           const std::vector<Arrival>& arrivals);

}  // namespace snowcar::bench
