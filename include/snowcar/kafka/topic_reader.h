// SPDX-License-Identifier: Apache-2.0
// Reading what some topics hold right now, without joining a consumer group: the partitions are
// assigned, not subscribed, so there is no group join to wait for and nothing is committed.
// For counting what reached Kafka (`snowcar demo` checks a restart's duplicates with it), not
// for the sink, which consumes with KafkaConsumer.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"

namespace snowcar::kafka {

struct TopicReadOptions {
  // librdkafka properties; bootstrap.servers is required. group.id defaults to client_id (an
  // assigning reader needs one but never joins or commits).
  std::map<std::string, std::string> properties;
  std::vector<std::string> topics;
  // Where to start in each partition; the start of the log for a partition not listed.
  std::map<TopicPartition, int64_t> from;
  std::string client_id = "snowcar-reader";
  // For the whole read: metadata, offsets and every record.
  std::chrono::milliseconds timeout{60000};
};

// Reads every record of `topics` from `from` up to the end each partition had when the read
// started, handing each to `on_record` in offset order per partition. Returns, per partition,
// the offset after the last record read (where a later read resumes). kUnavailable names a
// topic without metadata or offsets; kDeadlineExceeded says how many partitions were left.
Result<std::map<TopicPartition, int64_t>> ReadToEnd(
    const TopicReadOptions& options, const std::function<void(const InRecord&)>& on_record);

}  // namespace snowcar::kafka
