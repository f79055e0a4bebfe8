// SPDX-License-Identifier: Apache-2.0
// The freshness bench's reader: a Kafka consumer on the tables' topics that stamps each record
// as it arrives and reads the writer's sequence number from the row in its value. It is
// assigned every partition from the start (no group rebalance to wait for) and fetches with a
// short wait, so what it adds to a record's delay is small beside a poll interval.
#pragma once

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "freshness_tally.h"

namespace snowcar::bench {

struct ReaderOptions {
  std::string bootstrap;
  std::vector<std::string> topics;
  int partitions = 4;  // of each topic
  // isolation.level=read_committed: a transactional record is readable only once its
  // transaction committed (what an exactly-once reader sees); otherwise read_uncommitted.
  bool read_committed = false;
  std::chrono::steady_clock::time_point epoch;  // zero of the stamps
};

class ArrivalReader {
 public:
  explicit ArrivalReader(ReaderOptions options);
  ~ArrivalReader();
  ArrivalReader(const ArrivalReader&) = delete;
  ArrivalReader& operator=(const ArrivalReader&) = delete;

  // Creates the consumer and starts reading from the beginning of every partition. False
  // (the reason printed) when librdkafka refuses.
  bool Start();
  // Stops reading and closes the consumer; Arrivals() is then complete.
  void Stop();

  // Records without the writer's field (the rows there before the writer started).
  int64_t backlog() const { return backlog_.load(); }
  // Distinct changes seen so far.
  int64_t distinct() const { return distinct_.load(); }
  // Consumer errors other than the end of a partition (readable while running).
  int64_t errors() const { return errors_.load(); }
  const std::vector<Arrival>& Arrivals() const { return arrivals_; }

 private:
  void Run();

  ReaderOptions options_;
  rd_kafka_t* rk_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> backlog_{0};
  std::atomic<int64_t> distinct_{0};
  std::atomic<int64_t> errors_{0};
  std::vector<Arrival> arrivals_;  // written by the reading thread until Stop()
};

// The writer's sequence number in a record's value (the row as JSON, its field
// `u_freshness_seq` a string of digits); 0 when the value has none.
uint64_t SequenceOf(const char* value, size_t size);

}  // namespace snowcar::bench
