// SPDX-License-Identifier: Apache-2.0
// Kafka Connect's topic creation keys (KIP-158) for the source's table topics:
// src/kafka/topic_creation.cpp parses the family, src/source/poller/topic_preparer.cpp acts
// on it, docs/production.md ("Topics to create first") says when to use it.
#include <string>

#include "option_table_parts.h"

namespace snowcar::config {

namespace {

constexpr std::string_view kTopicCreation = "Topic creation";

// 0 partitions or replicas cannot make a topic; -1 asks for the broker's default.
std::string CheckNotZero(std::string_view value) {
  return value == "0" ? "must be -1 (the broker's default) or at least 1" : "";
}

}  // namespace

void AppendTopicCreationOptions(std::vector<OptionSpec>& table) {
  using T = OptionType;
  std::vector<OptionSpec> keys = {
      {.name = "topic.creation.enable",
       .type = T::kBool,
       .default_value = "true",
       .group = kTopicCreation,
       .doc = "Whether the source may create its tables' topics (Kafka Connect's worker-level "
              "switch). Creation also needs `topic.creation.default.replication.factor` and "
              "`topic.creation.default.partitions`; without both nothing is created, whatever "
              "this says, and a missing topic holds its table as any produce refusal does."},
      {.name = "topic.creation.default.replication.factor",
       .type = T::kInt,
       .min = -1,
       .max = 32767,
       .check = CheckNotZero,
       .group = kTopicCreation,
       .doc = "Replication factor of a table topic the source creates, when no group of "
              "`topic.creation.groups` takes the topic; -1 takes the broker's "
              "`default.replication.factor`. Given together with "
              "`topic.creation.default.partitions`, it turns creation on: before a table's "
              "first produce, its topic is looked up and, when the cluster does not have it, "
              "created through the Admin API (CreateTopics). An existing topic is never "
              "changed. A refusal (no Create ACL, a policy, more replicas than brokers) holds "
              "the table, which tries again after its back-off: nothing is read, so nothing "
              "is lost (docs/outcomes.md)."},
      {.name = "topic.creation.default.partitions",
       .type = T::kInt,
       .min = -1,
       .max = 2147483647,
       .check = CheckNotZero,
       .group = kTopicCreation,
       .doc = "Partition count of a created table topic outside every group; -1 takes the "
              "broker's `num.partitions`. A row's versions share its `sys_id` key and so one "
              "partition whatever the count."},
      {.name = "topic.creation.groups",
       .type = T::kList,
       .group = kTopicCreation,
       .doc = "Further groups with settings of their own, e.g. `compacted,audit`. A topic "
              "belongs to the first listed group that includes it and does not exclude it, "
              "otherwise to `default`."},
      {.name = "topic.creation.<group>.<setting>",
       .group = kTopicCreation,
       .doc = "A group's settings: `include` and `exclude` (comma-separated regular "
              "expressions matched against the whole topic name; `include` is required, "
              "`exclude` wins; the `default` group has neither), `replication.factor` and "
              "`partitions` (-1 or at least 1; a listed group without them takes the default "
              "group's), and any other name as a topic config of the topics the group "
              "creates, e.g. `topic.creation.default.cleanup.policy=compact` or "
              "`topic.creation.audit.retention.ms=604800000` (a group does not inherit the "
              "default group's configs). The broker checks config names and values when it "
              "creates the topic."},
  };
  for (auto& spec : keys) table.push_back(std::move(spec));
}

}  // namespace snowcar::config
