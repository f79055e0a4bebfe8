// SPDX-License-Identifier: Apache-2.0
// The fault scenarios. Each runs real processes, injects its faults and returns its table's
// rows; a row's verdict says whether nothing was lost and the duplicate bound held.
#pragma once

#include <string>
#include <vector>

#include "report.h"

namespace snowcar::fault {

struct RunOptions {
  bool long_run = false;  // --long: hundreds of kill -9 rounds; --quick: a few of each
  unsigned seed = 1;      // random crash points (printed, so a run can be repeated)
};

std::vector<Row> SourceKillNine(const RunOptions& options);
std::vector<Row> SourceBacklog(const RunOptions& options);
std::vector<Row> SourceSigterm(const RunOptions& options);
std::vector<Row> EvictionCheck(const RunOptions& options);
std::vector<Row> SinkKillNine(const RunOptions& options);
std::vector<Row> SinkSigterm(const RunOptions& options);
std::vector<Row> BrokerFaults(const RunOptions& options);
std::vector<Row> ServiceNowFaults(const RunOptions& options);
std::vector<Row> DiskFaults(const RunOptions& options);
std::vector<Row> CorruptState(const RunOptions& options);

}  // namespace snowcar::fault
