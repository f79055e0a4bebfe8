// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/broker/broker_options.h"

#include <charconv>
#include <string>

namespace snowcar::broker {
namespace {

// Far beyond what a test or the demo needs, small enough that a typo cannot eat the machine.
constexpr int kMaxBrokers = 16;
constexpr int kMaxPartitions = 1024;
constexpr size_t kMaxTopicNameLength = 249;

bool IsTopicChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

Result<int> ParseCount(std::string_view text, std::string_view what, std::string_view item) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return Status::InvalidArgument("topic spec '" + std::string(item) + "': " + std::string(what) +
                                   " '" + std::string(text) + "' is not a whole number");
  }
  return value;
}

}  // namespace

Status ValidateTopicName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("topic name is empty");
  if (name.size() > kMaxTopicNameLength) {
    return Status::InvalidArgument("topic name '" + std::string(name.substr(0, 40)) +
                                   "...' is longer than 249 characters");
  }
  if (name == "." || name == "..") {
    return Status::InvalidArgument("topic name '" + std::string(name) + "' is not allowed");
  }
  for (char c : name) {
    if (!IsTopicChar(c)) {
      return Status::InvalidArgument("topic name '" + std::string(name) +
                                     "' may only hold letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

Status Validate(const BrokerOptions& options) {
  if (options.brokers < 1 || options.brokers > kMaxBrokers) {
    return Status::InvalidArgument("broker count " + std::to_string(options.brokers) +
                                   " is out of range 1.." + std::to_string(kMaxBrokers));
  }
  if (options.eviction_watch_ms < 0) {
    return Status::InvalidArgument("eviction watch interval " +
                                   std::to_string(options.eviction_watch_ms) +
                                   " ms is negative (0 turns the watch off)");
  }
  for (const TopicSpec& t : options.topics) {
    SNOWCAR_RETURN_IF_ERROR(ValidateTopicName(t.name));
    if (t.partitions < 1 || t.partitions > kMaxPartitions) {
      return Status::InvalidArgument("topic '" + t.name + "': partition count " +
                                     std::to_string(t.partitions) + " is out of range 1.." +
                                     std::to_string(kMaxPartitions));
    }
    if (t.replication_factor < 1 || t.replication_factor > options.brokers) {
      return Status::InvalidArgument(
          "topic '" + t.name + "': replication factor " + std::to_string(t.replication_factor) +
          " must be between 1 and the broker count " + std::to_string(options.brokers));
    }
  }
  for (size_t i = 0; i < options.topics.size(); ++i) {
    for (size_t j = i + 1; j < options.topics.size(); ++j) {
      if (options.topics[i].name == options.topics[j].name) {
        return Status::InvalidArgument("topic '" + options.topics[i].name + "' is listed twice");
      }
    }
  }
  return Status::Ok();
}

Result<std::vector<TopicSpec>> ParseTopicSpecs(std::string_view text, int default_partitions) {
  std::vector<TopicSpec> out;
  if (text.empty()) return out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    if (item.empty())
      return Status::InvalidArgument("topic list '" + std::string(text) + "' has an empty item");
    TopicSpec spec;
    spec.partitions = default_partitions;
    const size_t c1 = item.find(':');
    spec.name = std::string(item.substr(0, c1));
    SNOWCAR_RETURN_IF_ERROR(
        ValidateTopicName(spec.name).WithContext("topic spec '" + std::string(item) + "'"));
    if (c1 != std::string_view::npos) {
      const std::string_view rest = item.substr(c1 + 1);
      const size_t c2 = rest.find(':');
      SNOWCAR_ASSIGN_OR_RETURN(spec.partitions,
                               ParseCount(rest.substr(0, c2), "partition count", item));
      if (c2 != std::string_view::npos) {
        SNOWCAR_ASSIGN_OR_RETURN(spec.replication_factor,
                                 ParseCount(rest.substr(c2 + 1), "replication factor", item));
      }
    }
    if (spec.partitions < 1) {
      return Status::InvalidArgument("topic spec '" + std::string(item) +
                                     "': partition count must be at least 1");
    }
    out.push_back(std::move(spec));
    if (comma == text.size()) break;
  }
  return out;
}

}  // namespace snowcar::broker
