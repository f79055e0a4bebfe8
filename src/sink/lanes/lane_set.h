// SPDX-License-Identifier: Apache-2.0
// The lanes of the partitions this member holds, by partition. Changed only on the consumer
// thread (assign / revoke / lose); read from any thread (socket views, metrics).
//
// Every lane gets a serial number no other lane of this set ever had. Lanes report back
// through events queued for the consumer thread, which may still be queued when their lane
// is gone: the serial, not the lane's address (a new lane may be allocated where a freed one
// was), tells whether an event belongs to the partition's current lane.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "lane.h"

namespace snowcar::sink {

class LaneSet {
 public:
  // `serial` is the new lane's (see above).
  using Factory =
      std::function<std::shared_ptr<PartitionLane>(const kafka::TopicPartition&, uint64_t serial)>;

  explicit LaneSet(Factory factory) : factory_(std::move(factory)) {}

  // Creates a lane for each partition that has none (eager rebalances hand out the whole
  // assignment again). Returns the lanes created.
  std::vector<std::shared_ptr<PartitionLane>> Add(const std::vector<kafka::TopicPartition>& tps);
  // The lanes of `tps` that exist.
  std::vector<std::shared_ptr<PartitionLane>> Get(
      const std::vector<kafka::TopicPartition>& tps) const;
  void Remove(const std::vector<kafka::TopicPartition>& tps);
  std::shared_ptr<PartitionLane> Find(const kafka::TopicPartition& tp) const;
  // The lane of `tp` if it is the one created with `serial`, else null (that lane is gone).
  std::shared_ptr<PartitionLane> Find(const kafka::TopicPartition& tp, uint64_t serial) const;
  std::vector<std::shared_ptr<PartitionLane>> All() const;
  std::vector<kafka::TopicPartition> Partitions() const;
  std::vector<LaneStatus> Snapshot() const;

 private:
  struct Entry {
    std::shared_ptr<PartitionLane> lane;
    uint64_t serial = 0;
  };

  Factory factory_;
  mutable std::mutex mu_;
  uint64_t last_serial_ = 0;                      // guarded by mu_
  std::map<kafka::TopicPartition, Entry> lanes_;  // guarded by mu_
};

}  // namespace snowcar::sink
