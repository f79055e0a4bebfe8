// SPDX-License-Identifier: Apache-2.0
// The Kafka side of source scale-out that is not the group itself: checking (and, where the
// cluster allows, creating) the coordination and changelog topics, and reading a table's
// latest snapshot (and its id set's chunks) back from its changelog partition before the
// table's first poll.
//
// Writing snapshots goes through the source's own RecordProducer (table_ownership.cpp).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::source {

struct TopicRequirement {
  std::string name;
  int32_t partitions = 1;
  bool compacted = false;  // created with cleanup.policy=compact
};

class StateChangelog {
 public:
  // `kafka_properties`: the `kafka.*` keys with the prefix stripped. The reader is a consumer
  // that never joins a group (it reads by assign), so the sink's group is unaffected.
  static Result<std::unique_ptr<StateChangelog>> Create(
      const std::map<std::string, std::string>& kafka_properties, std::string restore_group);
  ~StateChangelog();

  // Each topic must exist with at least `partitions` partitions. A missing topic is created
  // through the Admin API; when the cluster refuses (the embedded test broker has no Admin
  // API) the error says which topic to create and how. Too few partitions is refused: some
  // table would have no partition and never be polled.
  Status EnsureTopic(const TopicRequirement& topic, std::chrono::milliseconds timeout);

  // The value of the last record keyed `key` in `topic`/`partition`, reading from the start
  // to the end the partition had when the call began. nullopt when there is none (or it is a
  // tombstone). `records_read` counts what was read, for the restore progress view.
  Result<std::optional<std::string>> ReadLatest(const std::string& topic, int32_t partition,
                                                const std::string& key,
                                                std::chrono::milliseconds timeout,
                                                int64_t* records_read = nullptr);

  // Calls `visit` with the key and value (nullptr for a tombstone) of every record of
  // `topic`/`partition`, from the start to the end the partition had when the call began.
  using Visitor = std::function<void(std::string_view key, const std::string_view* value)>;
  Status Scan(const std::string& topic, int32_t partition, std::chrono::milliseconds timeout,
              const Visitor& visit, int64_t* records_read = nullptr);

  struct Impl;

 private:
  explicit StateChangelog(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace snowcar::source
