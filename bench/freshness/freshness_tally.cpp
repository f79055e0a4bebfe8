// SPDX-License-Identifier: Apache-2.0
#include "freshness_tally.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace snowcar::bench {

double NearestRank(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto n = static_cast<double>(sorted.size());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return static_cast<double>(sorted[rank - 1]);
}

FreshnessSummary Summarize(const std::vector<Change>& changes,
                           const std::vector<Arrival>& arrivals) {
  FreshnessSummary s;
  s.changes = static_cast<int64_t>(changes.size());
  std::unordered_map<uint64_t, const Change*> by_seq;
  by_seq.reserve(changes.size());
  for (const Change& c : changes) by_seq.emplace(c.seq, &c);

  // The first arrival of each version; later ones are duplicates.
  std::unordered_map<uint64_t, int64_t> first_arrival;
  for (const Arrival& a : arrivals) {
    if (by_seq.find(a.seq) == by_seq.end()) {
      ++s.unmatched;
      continue;
    }
    auto [it, inserted] = first_arrival.emplace(a.seq, a.arrived_us);
    if (!inserted) {
      ++s.duplicates;
      it->second = std::min(it->second, a.arrived_us);
    }
  }

  // The highest sequence number seen of each row decides whether an unseen change was
  // overwritten (a later version arrived) or lost.
  std::unordered_map<std::string, uint64_t> latest_seen;
  for (const auto& [seq, at] : first_arrival) {
    const std::string& row = by_seq.at(seq)->row;
    auto [it, inserted] = latest_seen.emplace(row, seq);
    if (!inserted) it->second = std::max(it->second, seq);
  }

  std::vector<int64_t> delays;
  delays.reserve(first_arrival.size());
  for (const Change& c : changes) {
    const auto seen = first_arrival.find(c.seq);
    if (seen != first_arrival.end()) {
      delays.push_back(seen->second - c.answered_us);
      continue;
    }
    const auto later = latest_seen.find(c.row);
    if (later != latest_seen.end() && later->second > c.seq) {
      ++s.superseded;
    } else {
      ++s.lost;
    }
  }
  s.seen = static_cast<int64_t>(delays.size());
  std::sort(delays.begin(), delays.end());
  s.p50_ms = NearestRank(delays, 50) / 1000.0;
  s.p99_ms = NearestRank(delays, 99) / 1000.0;
  s.max_ms = delays.empty() ? 0 : static_cast<double>(delays.back()) / 1000.0;
  return s;
}

}  // namespace snowcar::bench
