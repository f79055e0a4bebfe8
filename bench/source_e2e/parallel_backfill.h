// SPDX-License-Identifier: Apache-2.0
// The parallel backfill section of source_e2e_bench (parallel_backfill.cpp).
#pragma once

#include <string>
#include <vector>

namespace snowcar::bench {

struct ParallelBackfillOptions {
  int rows = 200000;
  int page = 5000;
  int latency_ms = 300;
  std::vector<int> parallelism = {1, 2, 4, 8};
  // When set, each run's requests to the table go to `<journal>.<parallelism>.tsv`: the time
  // after the run's first request (ms, when the emulator took the request) and the target.
  std::string journal;
};

// One emulator table of `rows` rows behind `latency_ms` per request; for each parallelism a
// fresh sidecar backfills it into its own topic. Prints rows/s, the instance's requests,
// peak RSS, and what Kafka holds (every row exactly once).
void RunParallelBackfill(const std::string& bootstrap, const ParallelBackfillOptions& options);

}  // namespace snowcar::bench
