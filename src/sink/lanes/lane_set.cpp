// SPDX-License-Identifier: Apache-2.0
#include "lane_set.h"

namespace snowcar::sink {

std::vector<std::shared_ptr<PartitionLane>> LaneSet::Add(
    const std::vector<kafka::TopicPartition>& tps) {
  std::vector<std::shared_ptr<PartitionLane>> created;
  std::lock_guard lock(mu_);
  for (const auto& tp : tps) {
    if (lanes_.count(tp) != 0) continue;
    const uint64_t serial = ++last_serial_;
    auto lane = factory_(tp, serial);
    lanes_.emplace(tp, Entry{lane, serial});
    created.push_back(std::move(lane));
  }
  return created;
}

std::vector<std::shared_ptr<PartitionLane>> LaneSet::Get(
    const std::vector<kafka::TopicPartition>& tps) const {
  std::vector<std::shared_ptr<PartitionLane>> out;
  std::lock_guard lock(mu_);
  for (const auto& tp : tps) {
    auto it = lanes_.find(tp);
    if (it != lanes_.end()) out.push_back(it->second.lane);
  }
  return out;
}

void LaneSet::Remove(const std::vector<kafka::TopicPartition>& tps) {
  std::lock_guard lock(mu_);
  for (const auto& tp : tps) lanes_.erase(tp);
}

std::shared_ptr<PartitionLane> LaneSet::Find(const kafka::TopicPartition& tp) const {
  std::lock_guard lock(mu_);
  auto it = lanes_.find(tp);
  return it == lanes_.end() ? nullptr : it->second.lane;
}

std::shared_ptr<PartitionLane> LaneSet::Find(const kafka::TopicPartition& tp,
                                             uint64_t serial) const {
  std::lock_guard lock(mu_);
  auto it = lanes_.find(tp);
  if (it == lanes_.end() || it->second.serial != serial) return nullptr;
  return it->second.lane;
}

std::vector<std::shared_ptr<PartitionLane>> LaneSet::All() const {
  std::vector<std::shared_ptr<PartitionLane>> out;
  std::lock_guard lock(mu_);
  for (const auto& [tp, entry] : lanes_) out.push_back(entry.lane);
  return out;
}

std::vector<kafka::TopicPartition> LaneSet::Partitions() const {
  std::vector<kafka::TopicPartition> out;
  std::lock_guard lock(mu_);
  for (const auto& [tp, entry] : lanes_) out.push_back(tp);
  return out;
}

std::vector<LaneStatus> LaneSet::Snapshot() const {
  std::vector<LaneStatus> out;
  for (const auto& lane : All()) out.push_back(lane->Snapshot());
  return out;
}

}  // namespace snowcar::sink
