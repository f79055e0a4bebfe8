// SPDX-License-Identifier: Apache-2.0
// What an embedded Kafka broker starts with: how many brokers, which topics exist up front.
//
// Topics are created before Start() returns so a test never races a client's auto-creation
// (the mock would pick its own partition count, which is rarely the one a test wants).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::broker {

struct TopicSpec {
  std::string name{};
  int partitions = 1;
  // The mock keeps one copy of the data whatever this says; it only changes the replica lists
  // reported in metadata. Capped at the broker count by Validate().
  int replication_factor = 1;
};

struct BrokerOptions {
  int brokers = 1;  // broker ids are 1..brokers
  std::vector<TopicSpec> topics{};
  // Answer the Admin API's CreateTopics, which the mock lacks, so a client that creates its
  // own topics (the source group's) works as against Apache Kafka. Clients then connect
  // through a thin relay in front of each mock broker (docs/embedded-broker.md). Off by
  // default: in-process tests create their topics up front and talk to the mock directly.
  bool create_topics_on_request = false;
  // Every this many ms, read each partition's first offset and log once per partition when the
  // mock has dropped its oldest records (its per-partition cap, log_start.h). 0: no watch. Off
  // by default: the watch is a client of its own, and in-process tests count requests.
  int eviction_watch_ms = 0;
};

// Accepts names the way Kafka does: 1..249 chars of [A-Za-z0-9._-], not "." or "..".
Status ValidateTopicName(std::string_view name);
// Checks counts and every topic, naming the first thing that is wrong.
Status Validate(const BrokerOptions& options);

// Parses the CLI form "orders:3,audit,events:6:2" (name[:partitions[:replication]]); a topic
// without a count gets `default_partitions`. Errors name the offending item.
Result<std::vector<TopicSpec>> ParseTopicSpecs(std::string_view text, int default_partitions = 1);

}  // namespace snowcar::broker
