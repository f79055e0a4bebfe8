// SPDX-License-Identifier: Apache-2.0
// The reconciliation section of source_e2e_bench (reconcile_sweep.cpp): what a sweep of a
// large table costs (issue #16: requests, seconds, CPU) and what its id set takes on disk.
#pragma once

#include <string>

namespace snowcar::bench {

struct SweepOptions {
  int rows = 1000000;
  int batch = 10000;     // snow.table.<alias>.reconcile.batch.size
  int latency_ms = 0;    // per request, applied once the backfill is done
  int deletions = 1000;  // rows the Table Cleaner removes after the baseline sweep
};

// One emulator table of `rows` rows, one sidecar with deletes=reconcile and sweeps every
// second: the backfill, then the baseline sweep, then `deletions` rows removed without an
// audit trail, then two more sweeps. Prints each sweep's duration, requests and the
// sidecar's CPU over it, the deletions found, and the id set's size on disk.
void RunReconcileSweep(const std::string& bootstrap, const SweepOptions& options);

}  // namespace snowcar::bench
