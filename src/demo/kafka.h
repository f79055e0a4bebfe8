// SPDX-License-Identifier: Apache-2.0
// The demo's Kafka side, on the product's kafka module: a producer for the sink's commands
// (kafka::KafkaProducer) and a census of the source topics (kafka::ReadToEnd), so the restart
// check counts what Kafka really holds instead of trusting the sidecar's counters.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"

namespace snowcar::demo {

class CommandProducer {
 public:
  static Result<std::unique_ptr<CommandProducer>> Create(const std::string& bootstrap);
  ~CommandProducer();

  // Produces one record and waits until the broker acknowledged it.
  Status Send(const std::string& topic, const std::optional<std::string>& key,
              const std::string& value, std::chrono::milliseconds timeout);

  struct Impl;

 private:
  explicit CommandProducer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

using kafka::TopicPartition;

struct Census {
  // Per partition: the offset after the last record read (where a later census resumes).
  std::map<TopicPartition, int64_t> end_offsets;
  std::map<std::string, int64_t> records_per_topic;
  // Every row version read, as "topic|sys_id|sys_mod_count", with how often it was seen.
  std::map<std::string, int64_t> versions;
  int64_t records = 0;
  // Per topic: records the broker had dropped by then (its 5 MiB per partition cap,
  // demo/capacity.h), which no census can count.
  std::map<std::string, int64_t> dropped_per_topic;
  int64_t dropped = 0;
};

// Reads `topics` from `from` (the start of each partition when absent) up to their current
// end. Each record is one row version identified by its key (sys_id) and the value's
// sys_mod_count.
Result<Census> TakeCensus(const std::string& bootstrap, const std::vector<std::string>& topics,
                          const std::map<TopicPartition, int64_t>& from,
                          std::chrono::milliseconds timeout);

struct RestartCount {
  int64_t before = 0;      // records in the source topics when the first sidecar had stopped
  int64_t after = 0;       // records added by the restarted sidecar
  int64_t re_emitted = 0;  // of those, row versions that were already there (or came twice)
};

// `after` must be a census that resumed at `before.end_offsets`.
RestartCount CompareCensus(const Census& before, const Census& after);

}  // namespace snowcar::demo
