// SPDX-License-Identifier: Apache-2.0
#include "table_ownership_map.h"

#include <algorithm>

namespace snowcar::source {

TablePartitionMap::TablePartitionMap(std::vector<std::string> aliases)
    : aliases_(std::move(aliases)) {
  std::sort(aliases_.begin(), aliases_.end());
  aliases_.erase(std::unique(aliases_.begin(), aliases_.end()), aliases_.end());
}

std::optional<int32_t> TablePartitionMap::PartitionOf(std::string_view alias) const {
  auto it = std::lower_bound(aliases_.begin(), aliases_.end(), alias);
  if (it == aliases_.end() || *it != alias) return std::nullopt;
  return static_cast<int32_t>(it - aliases_.begin());
}

std::optional<std::string> TablePartitionMap::AliasOf(int32_t partition) const {
  if (partition < 0 || static_cast<size_t>(partition) >= aliases_.size()) return std::nullopt;
  return aliases_[static_cast<size_t>(partition)];
}

std::string CoordinationTopic(std::string_view group_id) {
  return std::string(group_id) + ".tables";
}

std::string ChangelogTopic(std::string_view group_id) { return std::string(group_id) + ".state"; }

}  // namespace snowcar::source
