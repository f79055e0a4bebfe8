// SPDX-License-Identifier: Apache-2.0
// The lanes of the partitions this member holds, by partition. Changed only on the consumer
// thread (assign / revoke / lose); read from any thread (socket views, metrics).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "lane.h"

namespace snowcar::sink {

class LaneSet {
 public:
  using Factory = std::function<std::shared_ptr<PartitionLane>(const kafka::TopicPartition&)>;

  explicit LaneSet(Factory factory) : factory_(std::move(factory)) {}

  // Creates a lane for each partition that has none (eager rebalances hand out the whole
  // assignment again). Returns the lanes created.
  std::vector<std::shared_ptr<PartitionLane>> Add(const std::vector<kafka::TopicPartition>& tps);
  // The lanes of `tps` that exist.
  std::vector<std::shared_ptr<PartitionLane>> Get(
      const std::vector<kafka::TopicPartition>& tps) const;
  void Remove(const std::vector<kafka::TopicPartition>& tps);
  std::shared_ptr<PartitionLane> Find(const kafka::TopicPartition& tp) const;
  std::vector<std::shared_ptr<PartitionLane>> All() const;
  std::vector<kafka::TopicPartition> Partitions() const;
  std::vector<LaneStatus> Snapshot() const;

 private:
  Factory factory_;
  mutable std::mutex mu_;
  std::map<kafka::TopicPartition, std::shared_ptr<PartitionLane>> lanes_;  // guarded by mu_
};

}  // namespace snowcar::sink
