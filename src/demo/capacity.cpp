// SPDX-License-Identifier: Apache-2.0
#include "demo/capacity.h"

#include <algorithm>

#include "snowcar/testbed/broker/log_start.h"

namespace snowcar::demo {

int64_t SecondsUntilCap(const Options& options) {
  const int64_t per_partition =
      static_cast<int64_t>(broker::kMockPartitionCapBytes) / kApproxSourceRecordBytes;
  // The first load: every generated row once, spread over the partitions by key.
  const int64_t loaded = (options.rows + kSourcePartitions - 1) / kSourcePartitions;
  if (loaded >= per_partition) return 0;
  const int64_t tables = std::max<int64_t>(1, static_cast<int64_t>(options.tables.size()));
  const double per_second =
      static_cast<double>(options.rate) / static_cast<double>(tables * kSourcePartitions);
  if (per_second <= 0) return INT64_MAX;
  return static_cast<int64_t>(static_cast<double>(per_partition - loaded) / per_second);
}

std::string CapNotice(const Options& options) {
  const int64_t seconds = SecondsUntilCap(options);
  std::string when =
      seconds == 0 ? "already with the first load"
      : seconds == INT64_MAX
          ? "never (the writer is off)"
          : "after about " + std::to_string(std::max<int64_t>(1, seconds / 60)) + " min";
  return "the broker keeps 5 MiB per partition (about " +
         std::to_string(static_cast<int64_t>(broker::kMockPartitionCapBytes) /
                        kApproxSourceRecordBytes) +
         " source records) and then drops the oldest; at this rate a source topic reaches it " +
         when + ", and the counts below then cover only what it still holds";
}

std::string DroppedNote(int64_t dropped) {
  if (dropped <= 0) return "";
  return "; the broker had dropped the oldest " + std::to_string(dropped) +
         " (its 5 MiB per partition cap), which are not counted";
}

}  // namespace snowcar::demo
