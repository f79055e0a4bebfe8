// The sink's counters, as Prometheus text for /metrics. Counters are atomics bumped from the
// lanes' strands; WriteMetrics reads them from socket handlers.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "snowcar/sink/failure.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

class SinkMetrics {
 public:
  // One record applied; `ignored` for a not-found that not.found.behavior=ignore completed.
  void CountApplied(Operation op, bool ignored);
  void CountFailure(ErrorClass klass);
  void CountRetry() { retries_.fetch_add(1, std::memory_order_relaxed); }
  void CountDlq() { dlq_.fetch_add(1, std::memory_order_relaxed); }

  int64_t applied(Operation op) const;
  int64_t ignored() const { return ignored_.load(std::memory_order_relaxed); }
  int64_t failures(ErrorClass klass) const;
  int64_t retries() const { return retries_.load(std::memory_order_relaxed); }
  int64_t dlq() const { return dlq_.load(std::memory_order_relaxed); }

  struct LaneGauge {
    std::string topic;
    int32_t partition = 0;
    bool failed = false;
  };
  // Appends the exposition; the gauges come from the live lanes and the in-flight limit.
  void Write(std::string& out, int in_flight, int in_flight_max,
             const std::vector<LaneGauge>& lanes) const;

 private:
  std::array<std::atomic<int64_t>, 4> applied_{};  // by Operation
  std::atomic<int64_t> ignored_{0};
  std::array<std::atomic<int64_t>, 6> failures_{};  // by ErrorClass
  std::atomic<int64_t> retries_{0};
  std::atomic<int64_t> dlq_{0};
};

}  // namespace snowcar::sink
