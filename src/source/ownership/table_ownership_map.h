// SPDX-License-Identifier: Apache-2.0
// Source scale-out: which partition of the coordination topic stands for which table, and the
// names of the two internal topics a source group uses (docs/scale-out.md).
//
// Why partitions of a topic: Kafka's group protocol only divides partitions between members.
// Giving every table one partition of `<group>.tables` lets the group assign tables, so one
// table is polled by exactly one replica, moves when its owner leaves, and rebalances when a
// replica joins, with no coordinator of our own. The same index selects the table's partition
// of the changelog `<group>.state`, so a table's state lives in one small partition.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snowcar::source {

// Partition i belongs to the i-th alias in byte-wise sorted order. Sorting makes the mapping
// the same on every replica whatever order `snow.tables` lists the aliases in; replicas must
// still list the same set (a replica with another set would map partitions differently).
class TablePartitionMap {
 public:
  // Duplicates are dropped (the config loader already refuses them).
  explicit TablePartitionMap(std::vector<std::string> aliases);

  size_t size() const { return aliases_.size(); }
  const std::vector<std::string>& aliases() const { return aliases_; }
  std::optional<int32_t> PartitionOf(std::string_view alias) const;
  // nullopt for a partition past the last table (a topic may have spare partitions).
  std::optional<std::string> AliasOf(int32_t partition) const;

 private:
  std::vector<std::string> aliases_;  // sorted
};

// `<group>.tables`: the coordination topic, whose partitions the group divides.
std::string CoordinationTopic(std::string_view group_id);
// `<group>.state`: the compacted changelog of table state, keyed by alias.
std::string ChangelogTopic(std::string_view group_id);

}  // namespace snowcar::source
