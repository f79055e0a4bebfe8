// SPDX-License-Identifier: Apache-2.0
// The sink's counters, as Prometheus text for /metrics. Counters are atomics bumped from the
// lanes' strands; WriteMetrics reads them from socket handlers.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "snowcar/kafka/record.h"
#include "snowcar/sink/commands/failure.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

class SinkMetrics {
 public:
  // One record of partition `tp` applied; `ignored` for a not-found that
  // not.found.behavior=ignore completed.
  void CountApplied(Operation op, bool ignored, const kafka::TopicPartition& tp);
  void CountFailure(ErrorClass klass);
  void CountRetry() { retries_.fetch_add(1, std::memory_order_relaxed); }
  // A command of partition `source` reached the dead letter queue.
  void CountDlq(const kafka::TopicPartition& source);

  int64_t applied(Operation op) const;
  int64_t ignored() const { return ignored_.load(std::memory_order_relaxed); }
  int64_t failures(ErrorClass klass) const;
  int64_t retries() const { return retries_.load(std::memory_order_relaxed); }
  int64_t dlq() const { return dlq_.load(std::memory_order_relaxed); }

  struct LaneGauge {
    std::string topic;
    int32_t partition = 0;
    bool failed = false;
    bool in_flight = false;  // a record of the partition is being applied now
    int64_t queued = 0;      // records fetched and waiting behind it
    // Records of the partition not yet applied: its high watermark minus the next offset to
    // complete (stored, else committed, else the record in flight); -1 when either end is not
    // known yet.
    int64_t lag = -1;
  };
  // Appends the exposition; the gauges come from the live lanes and the in-flight limit.
  void Write(std::string& out, int in_flight, int in_flight_max,
             const std::vector<LaneGauge>& lanes) const;

 private:
  std::array<std::atomic<int64_t>, 4> applied_{};  // by Operation
  std::atomic<int64_t> ignored_{0};
  std::array<std::atomic<int64_t>, 7> failures_{};  // by ErrorClass
  std::atomic<int64_t> retries_{0};
  std::atomic<int64_t> dlq_{0};
  // Per partition, kept for the life of the process (a partition that moves to another
  // replica keeps its last value here, as a Prometheus counter should).
  struct PartitionCounters {
    int64_t applied = 0;
    int64_t dlq = 0;
  };
  mutable std::mutex partitions_mu_;
  std::map<std::pair<std::string, int32_t>, PartitionCounters> partitions_;  // partitions_mu_
};

}  // namespace snowcar::sink
