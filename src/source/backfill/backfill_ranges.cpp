// SPDX-License-Identifier: Apache-2.0
#include "backfill_ranges.h"

#include <algorithm>
#include <set>

namespace snowcar::source {

RangeSplitter::RangeSplitter(int64_t lo, int64_t hi, int parallelism, int limit)
    : lo_(lo), hi_(hi), parallelism_(std::max(1, parallelism)), limit_(std::max(1, limit)) {
  known_[lo_] = 0;
  if (hi_ - lo_ < 2 || parallelism_ < 2) done_ = true;  // nothing to cut
}

std::vector<int64_t> RangeSplitter::NextProbes() {
  if (done_ || outstanding_ > 0) return {};
  if (total_ < 0) {
    outstanding_ = 1;
    return {hi_};
  }
  std::set<int64_t> probes;
  bool open = false;
  for (int k = 1; k < ranges_; ++k) {
    int64_t probe = 0;
    if (!Resolve(total_ * k / ranges_, &probe)) {
      open = true;
      if (!known_.contains(probe)) probes.insert(probe);
    }
  }
  if (!open || probes.empty() || rounds_ >= kMaxSplitRounds) {
    Settle();
    return {};
  }
  ++rounds_;
  outstanding_ = static_cast<int>(probes.size());
  return {probes.begin(), probes.end()};
}

void RangeSplitter::OnCount(int64_t t, int64_t count) {
  if (outstanding_ > 0) --outstanding_;
  if (t == hi_ && total_ < 0) {
    total_ = std::max<int64_t>(0, count);
    known_[hi_] = total_;
    const int64_t pages = (total_ + limit_ - 1) / limit_;
    ranges_ = static_cast<int>(std::min<int64_t>(parallelism_, pages / kMinPagesPerRange));
    if (!Cuttable(total_, limit_)) done_ = true;  // one sweep reads it as fast
    return;
  }
  known_[t] = count;
}

void RangeSplitter::OnFirstRow(int64_t ts) {
  if (ts - 1 > lo_ && ts - 1 < hi_) {
    known_[ts - 1] = 0;
    first_ = ts - 1;
  }
}

bool RangeSplitter::Cuttable(int64_t rows, int limit) {
  const int64_t pages = (rows + limit - 1) / std::max(1, limit);
  return pages / kMinPagesPerRange >= 2;
}

double RangeSplitter::RowsPerSecond() const {
  if (total_ < 0) return -1;
  const int64_t from = first_.value_or(lo_);
  return static_cast<double>(total_) / static_cast<double>(std::max<int64_t>(1, hi_ - from));
}

std::optional<int64_t> RangeSplitter::Resolve(int64_t q, int64_t* probe) const {
  // The first known second whose count reaches q, and the known second before it.
  auto b = known_.lower_bound(lo_);
  while (b != known_.end() && b->second < q) ++b;
  if (b == known_.end()) return hi_;
  if (b == known_.begin()) return b->first;
  auto a = std::prev(b);
  const int64_t ta = a->first;
  const int64_t tb = b->first;
  const int64_t ca = a->second;
  const int64_t cb = b->second;
  // A second already counted within half a page of the target is the cut: a range then ends
  // at most a page off its share, which costs its sweep less than another round of counts
  // (one request each) would save. On an even spread the first round's interpolation lands
  // there, so the cut takes one round.
  const int64_t near = std::max<int64_t>(1, limit_ / 2);
  if (q - ca <= near || cb - q <= near) return (q - ca <= cb - q) ? ta : tb;
  // Close enough: the cut is off by at most an eighth of a range's rows (or a page).
  const int64_t tolerance = std::max<int64_t>(limit_, total_ / (int64_t{8} * ranges_));
  if (tb - ta <= 1 || cb - ca <= tolerance) return (q - ca <= cb - q) ? ta : tb;
  // Interpolate between the two counts, kept an eighth of the bracket away from its ends so
  // that a skewed distribution still shrinks the bracket geometrically.
  const int64_t width = tb - ta;
  const int64_t margin = std::max<int64_t>(1, width / 8);
  const long double share =
      static_cast<long double>(q - ca) / static_cast<long double>(std::max<int64_t>(1, cb - ca));
  int64_t t = ta + static_cast<int64_t>(share * static_cast<long double>(width));
  *probe = std::clamp(t, ta + margin, tb - margin);
  return std::nullopt;
}

void RangeSplitter::Settle() {
  done_ = true;
  std::set<int64_t> cuts;
  for (int k = 1; k < ranges_; ++k) {
    int64_t probe = 0;
    std::optional<int64_t> cut = Resolve(total_ * k / ranges_, &probe);
    const int64_t t = cut ? *cut : probe;  // out of rounds: the best guess
    if (t > lo_ && t < hi_) cuts.insert(t);
  }
  cuts_.assign(cuts.begin(), cuts.end());
}

std::vector<state::BackfillRange> RangeSplitter::Ranges() const {
  std::vector<state::BackfillRange> out;
  if (!done_ || cuts_.empty()) return out;
  int64_t from = lo_;
  for (size_t i = 0; i <= cuts_.size(); ++i) {
    const int64_t to = i < cuts_.size() ? cuts_[i] : hi_;
    state::BackfillRange r;
    r.lo = from;
    r.hi = to;
    r.position = state::Cursor{from + 1, "", state::Phase::kBackfill};
    out.push_back(std::move(r));
    from = to;
  }
  return out;
}

std::vector<int64_t> RangeSplitter::RangeRows() const {
  std::vector<int64_t> out;
  for (const state::BackfillRange& r : Ranges()) {
    const auto from = known_.find(r.lo);
    const auto to = known_.find(r.hi);
    out.push_back(from != known_.end() && to != known_.end() ? to->second - from->second : -1);
  }
  return out;
}

state::Cursor MergedCursor(const state::BackfillProgress& progress) {
  for (const state::BackfillRange& r : progress.ranges) {
    if (!r.done) return r.position;
  }
  if (progress.ranges.empty()) return state::Cursor{};
  // Every range finished: nothing of the second after the last one is read yet.
  return state::Cursor{progress.ranges.back().hi + 1, "", state::Phase::kBackfill};
}

Status CheckProgress(const state::BackfillProgress& progress) {
  if (progress.ranges.empty()) return Status::InvalidArgument("the backfill has no ranges");
  for (size_t i = 0; i < progress.ranges.size(); ++i) {
    const state::BackfillRange& r = progress.ranges[i];
    const std::string name = "backfill range " + std::to_string(i);
    if (r.hi <= r.lo) return Status::InvalidArgument(name + " is empty");
    if (i > 0 && progress.ranges[i - 1].hi != r.lo) {
      return Status::InvalidArgument(name + " does not start where the one before ends");
    }
    const bool at_start = r.position.ts == r.lo + 1 && r.position.sys_id.empty();
    const bool inside = r.position.ts > r.lo && r.position.ts <= r.hi;
    if (!at_start && !inside) {
      return Status::InvalidArgument(name + " has a position outside its range");
    }
  }
  return Status::Ok();
}

}  // namespace snowcar::source
