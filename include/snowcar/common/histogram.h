// SPDX-License-Identifier: Apache-2.0
// A latency histogram as Prometheus reads one: fixed upper bounds in seconds, a count per
// bucket, the total count and the sum. Plain data, copyable: the owner guards it with the
// lock that already guards its other counters, and /metrics writes a copy
// (api::WriteHistogram).
#pragma once

#include <array>
#include <cstdint>

namespace snowcar {

struct LatencyHistogram {
  // From a millisecond (a produce to a local broker) to a minute (a Table API call that
  // reaches its timeout); the same bounds for every family, so panels can be compared.
  static constexpr std::array<double, 15> kBounds = {
      0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};

  std::array<int64_t, kBounds.size()> buckets{};  // observations <= kBounds[i] and > kBounds[i-1]
  int64_t count = 0;                              // every observation (the +Inf bucket)
  double sum = 0;                                 // seconds

  void Observe(double seconds) {
    ++count;
    sum += seconds;
    for (size_t i = 0; i < kBounds.size(); ++i) {
      if (seconds <= kBounds[i]) {
        ++buckets[i];
        return;
      }
    }
  }
};

}  // namespace snowcar
