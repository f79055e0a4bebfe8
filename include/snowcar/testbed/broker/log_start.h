// SPDX-License-Identifier: Apache-2.0
// How much of a partition the embedded broker still holds, and a watch that says when it
// stopped holding all of it.
//
// librdkafka 2.0.2's mock cluster keeps each partition's log in memory under a fixed cap
// (kMockPartitionCapBytes of record batches or kMockPartitionCapBatches batches, whichever is
// hit first) and drops the oldest whole batches past it, without telling anyone: a reader that
// starts "from the beginning" simply starts later. The cap is a constant inside librdkafka; no
// configuration key or mock call changes it. What a client can see is the partition's first
// offset (the log start offset, ListOffsets "earliest"): it is 0 until something was dropped
// and the number of offsets dropped after that.
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "snowcar/common/mutex.h"
#include "snowcar/common/status.h"

namespace snowcar::broker {

// The mock's per-partition cap (rdkafka_mock.c in 2.0.2; docs/embedded-broker.md). Past either
// figure the oldest batches go, whole, until the partition is back under both.
inline constexpr size_t kMockPartitionCapBytes = size_t{5} * 1024 * 1024;
inline constexpr size_t kMockPartitionCapBatches = 100000;

struct PartitionExtent {
  std::string topic;
  int32_t partition = 0;
  int64_t log_start = 0;  // first offset still held: offsets below it were dropped
  int64_t log_end = 0;    // the next offset to be written
};

// Asks a cluster (any Kafka cluster, the embedded one included) for the first and next offset
// of partitions, through a client of its own that produces nothing and creates no topics.
class LogStartReader {
 public:
  static Result<std::unique_ptr<LogStartReader>> Create(const std::string& bootstrap);
  ~LogStartReader();
  LogStartReader(const LogStartReader&) = delete;
  LogStartReader& operator=(const LogStartReader&) = delete;

  // Every partition of `topic`, or of every topic when `topic` is empty, in metadata order.
  // NotFound for a named topic that does not exist; Unavailable when the cluster does not
  // answer within `timeout` (per request).
  Result<std::vector<PartitionExtent>> Read(std::string_view topic,
                                            std::chrono::milliseconds timeout);

 private:
  LogStartReader() = default;
  rd_kafka_t* rk_ = nullptr;
};

// Sum of log_start over `extents`: the offsets the cluster no longer holds.
int64_t DroppedOffsets(const std::vector<PartitionExtent>& extents);

// Reads every partition's log start every `interval` on a thread of its own and reports each
// partition once, the first time its log start is above 0: as a warning log line
// (`broker.records_evicted`) and through `on_dropped` when given. Stops in the destructor.
class EvictionWatch {
 public:
  using OnDropped = std::function<void(const PartitionExtent&)>;
  static Result<std::unique_ptr<EvictionWatch>> Start(const std::string& bootstrap,
                                                      std::chrono::milliseconds interval,
                                                      OnDropped on_dropped = {});
  ~EvictionWatch();
  EvictionWatch(const EvictionWatch&) = delete;
  EvictionWatch& operator=(const EvictionWatch&) = delete;

  // Completed passes over the cluster so far (a test waits for one more before concluding
  // that nothing further was reported). Any thread.
  uint64_t passes() const SNOWCAR_EXCLUDES(mu_);

 private:
  EvictionWatch() = default;
  void Run();  // the watch's own thread

  std::unique_ptr<LogStartReader> reader_;
  std::chrono::milliseconds interval_{};
  OnDropped on_dropped_;
  mutable Mutex mu_;
  CondVar wake_;
  bool stop_ SNOWCAR_GUARDED_BY(mu_) = false;
  uint64_t passes_ SNOWCAR_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace snowcar::broker
