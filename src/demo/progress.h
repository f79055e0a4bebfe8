// SPDX-License-Identifier: Apache-2.0
// What the demo shows every second, read from the sidecar's socket like any operator would:
// /v1/source/tables for the per-table counters and /metrics for the sink's totals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snowcar::demo {

struct TableProgress {
  std::string alias;
  std::string state;  // running, backing_off, failed, ...
  std::string phase;  // backfill or stream
  int64_t emitted = 0;
  int64_t suppressed = 0;  // re-read rows the dedup index kept out of Kafka
  int64_t skipped = 0;
  int64_t pages = 0;
  int64_t lag_seconds = 0;
  std::string last_error;

  // Rows the poller has finished with: emitted, suppressed as duplicates, or skipped.
  int64_t read() const { return emitted + suppressed + skipped; }
};

struct SinkProgress {
  int64_t applied = 0;  // snowcar_sink_records_total, every operation
  int64_t failed = 0;   // snowcar_sink_failures_total, every class
};

struct Progress {
  bool answered = false;  // false: the socket did not answer (starting or stopping)
  std::vector<TableProgress> tables;
  SinkProgress sink;
};

Progress ReadProgress(const std::string& socket);
bool SidecarReady(const std::string& socket);
// The sys_id the sink cached for a correlation value, once it created that row.
std::optional<std::string> CachedSysId(const std::string& socket, const std::string& table,
                                       const std::string& field, const std::string& value);
// Sum of every sample of one metric family in Prometheus text ("name{...} value" lines).
int64_t SumMetric(const std::string& text, const std::string& name);

}  // namespace snowcar::demo
