// SPDX-License-Identifier: Apache-2.0
#include "sink/lanes/lane_set.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace snowcar::sink {
namespace {

class NullLane : public PartitionLane {
 public:
  explicit NullLane(kafka::TopicPartition tp) : tp_(std::move(tp)) {}
  const kafka::TopicPartition& tp() const override { return tp_; }
  void Enqueue(kafka::InRecord /*record*/) override {}
  void Stop() override {}
  void Abandon() override {}
  bool Busy() const override { return false; }
  LaneStatus Snapshot() const override {
    LaneStatus s;
    s.tp = tp_;
    return s;
  }
  void SetCommitted(int64_t /*offset*/) override {}
  void SetHighWatermark(int64_t /*offset*/) override {}
  void SetStored(int64_t /*offset*/) override {}

 private:
  kafka::TopicPartition tp_;
};

// The allocator's choice made certain: every lane is built in the same storage, so a lane
// created after another was freed has that lane's address (what malloc often does when a lost
// partition is assigned again within one poll).
class ReusedStorageFactory {
 public:
  std::shared_ptr<PartitionLane> operator()(const kafka::TopicPartition& tp, uint64_t serial) {
    serials.push_back(serial);
    auto* lane = new (storage_) NullLane(tp);
    return std::shared_ptr<PartitionLane>(lane, [](PartitionLane* l) { l->~PartitionLane(); });
  }
  std::vector<uint64_t> serials;

 private:
  alignas(NullLane) std::byte storage_[sizeof(NullLane)];
};

TEST(LaneSet, AnEventOfAFreedLaneIsNotTakenForANewLaneAtTheSameAddress) {
  ReusedStorageFactory factory;
  LaneSet lanes(
      [&factory](const kafka::TopicPartition& tp, uint64_t serial) { return factory(tp, serial); });
  const kafka::TopicPartition tp{"commands", 3};

  const void* old_address = lanes.Add({tp}).at(0).get();
  // The old lane, backing off, asked for a pause; the event waits in the consumer's queue
  // while the partition is lost (the lane freed) and assigned again in the same poll.
  const uint64_t old_serial = factory.serials.at(0);
  lanes.Remove({tp});
  const void* new_address = lanes.Add({tp}).at(0).get();
  ASSERT_EQ(new_address, old_address) << "the test's factory must reuse the storage";
  const uint64_t new_serial = factory.serials.at(1);

  EXPECT_NE(new_serial, old_serial);
  EXPECT_EQ(lanes.Find(tp, old_serial), nullptr) << "the stale event would pause the new lane";
  ASSERT_NE(lanes.Find(tp, new_serial), nullptr);
  EXPECT_EQ(lanes.Find(tp, new_serial).get(), new_address);
}

TEST(LaneSet, SerialsAreUniqueAcrossPartitionsAndAnEventOfARemovedLaneFindsNothing) {
  std::vector<uint64_t> serials;
  LaneSet lanes([&serials](const kafka::TopicPartition& tp, uint64_t serial) {
    serials.push_back(serial);
    return std::make_shared<NullLane>(tp);
  });
  const kafka::TopicPartition a{"commands", 0};
  const kafka::TopicPartition b{"commands", 1};
  EXPECT_EQ(lanes.Add({a, b}).size(), 2u);
  EXPECT_TRUE(lanes.Add({a}).empty()) << "a partition that has a lane keeps it";
  ASSERT_EQ(serials.size(), 2u);
  EXPECT_NE(serials[0], serials[1]);
  EXPECT_NE(lanes.Find(a, serials[0]), nullptr);
  EXPECT_EQ(lanes.Find(b, serials[0]), nullptr) << "another partition's lane";
  lanes.Remove({a});
  EXPECT_EQ(lanes.Find(a, serials[0]), nullptr);
  EXPECT_NE(lanes.Find(b, serials[1]), nullptr);
}

}  // namespace
}  // namespace snowcar::sink
