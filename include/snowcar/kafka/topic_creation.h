// SPDX-License-Identifier: Apache-2.0
// Kafka Connect's `topic.creation.*` keys (KIP-158): which partitions, replication factor and
// topic configs a source table's topic gets when snowcar has to create it.
//
// Why Connect's shape: a source connector's properties file must run unchanged, and platform
// teams already know these keys. The rules, as Connect has them:
//   - creation is active only with `topic.creation.enable` (default true) and both
//     `topic.creation.default.replication.factor` and `topic.creation.default.partitions`;
//   - `topic.creation.groups` lists further groups, tried in that order; a topic belongs to
//     the first group one of whose `include` patterns matches it and none of whose `exclude`
//     patterns does, else to the `default` group (which matches every topic);
//   - a group's `replication.factor` and `partitions` fall back to the default group's; every
//     other `topic.creation.<group>.<name>` is the topic config `<name>` (cleanup.policy,
//     retention.ms, ...), of that group only; -1 means the broker's default.
// Patterns are regular expressions that must match the whole topic name.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::kafka {

// What a missing topic is created with.
struct NewTopicSpec {
  std::string name;
  std::string group;        // the topic.creation group that decided, "default" or a listed one
  int32_t partitions = -1;  // -1: the broker's num.partitions
  int32_t replication_factor = -1;  // -1: the broker's default.replication.factor
  std::map<std::string, std::string> configs;

  bool operator==(const NewTopicSpec&) const = default;
};

struct TopicCreationGroup {
  std::string name = {};
  std::vector<std::string> include = {};  // as given; the default group has none (takes all)
  std::vector<std::string> exclude = {};
  int32_t partitions = -1;
  int32_t replication_factor = -1;
  std::map<std::string, std::string> configs = {};

  bool operator==(const TopicCreationGroup&) const = default;
};

class TopicCreation {
 public:
  // Off: no topic is created (what a file without the keys gets).
  TopicCreation() = default;

  // `enable` is topic.creation.enable; `keys` every other `topic.creation.*` key given, with
  // the prefix stripped ("default.partitions", "groups", "compacted.include", ...).
  // InvalidArgument lists every problem, naming the full key.
  static Result<TopicCreation> Parse(bool enable, const std::map<std::string, std::string>& keys);

  bool active() const { return active_; }
  // What `topic` is created with; nullopt when creation is off.
  std::optional<NewTopicSpec> For(const std::string& topic) const;

  const TopicCreationGroup& default_group() const { return default_; }
  const std::vector<TopicCreationGroup>& groups() const { return groups_; }

  // The text of the rules (compiled patterns are derived from it).
  bool operator==(const TopicCreation& other) const {
    return active_ == other.active_ && default_ == other.default_ && groups_ == other.groups_;
  }

  // The groups' patterns, compiled once (topic_creation.cpp).
  struct Compiled;

 private:
  bool active_ = false;
  TopicCreationGroup default_{.name = "default"};
  std::vector<TopicCreationGroup> groups_;  // in topic.creation.groups order
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace snowcar::kafka
