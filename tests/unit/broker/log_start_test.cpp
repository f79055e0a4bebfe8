// SPDX-License-Identifier: Apache-2.0
// The mock's per-partition cap, pinned: past 5 MiB of batches it drops the oldest, and the
// partition's first offset says so. And the reader and the watch that tell a dropped record
// from one that never arrived.
#include "snowcar/testbed/broker/log_start.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "snowcar/testbed/broker/embedded_broker.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::broker {
namespace {

using namespace std::chrono_literals;
using testsupport::OutMessage;
using testsupport::TestConsumer;
using testsupport::TestProducer;

constexpr size_t kValueBytes = size_t{100} * 1024;

// `count` messages of 100 KiB to one partition, each in a batch of its own, so the cap falls
// between two known batches.
void Fill(const std::string& bootstrap, const std::string& topic, int partition, int count) {
  auto producer =
      TestProducer::Create(bootstrap, {{"linger.ms", "0"}, {"batch.num.messages", "1"}});
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  std::vector<OutMessage> messages(count);
  for (OutMessage& m : messages) {
    m.value = std::string(kValueBytes, 'x');
    m.partition = partition;
  }
  auto reports = (*producer)->ProduceAll(topic, messages, 60s);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  for (const auto& r : *reports) ASSERT_EQ(r.error, RD_KAFKA_RESP_ERR_NO_ERROR);
}

PartitionExtent Extent(const std::vector<PartitionExtent>& all, int partition) {
  for (const PartitionExtent& e : all) {
    if (e.partition == partition) return e;
  }
  ADD_FAILURE() << "no partition " << partition;
  return {};
}

class MockRetention : public testsupport::EmbeddedBrokerTest {
  BrokerOptions Options() override { return {.topics = {{"big", 2}, {"other", 1}}}; }
};

TEST_F(MockRetention, DropsTheOldestBatchesPastFiveMiBPerPartition) {
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap(), "big", 0, 60));  // 6 000 KiB > 5 MiB
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap(), "big", 1, 3));
  auto reader = LogStartReader::Create(bootstrap());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto big = (*reader)->Read("big", 10s);
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  ASSERT_EQ(big->size(), 2u);

  const PartitionExtent full = Extent(*big, 0);
  EXPECT_EQ(full.log_end, 60);
  EXPECT_GT(full.log_start, 0) << "the mock kept more than 5 MiB: its cap changed";
  // What stays is just under the cap: whole batches, the oldest gone first.
  const size_t held = static_cast<size_t>(full.log_end - full.log_start) * kValueBytes;
  EXPECT_LE(held, kMockPartitionCapBytes);
  EXPECT_GT(held, kMockPartitionCapBytes - 2 * kValueBytes);
  const PartitionExtent small = Extent(*big, 1);
  EXPECT_EQ(small.log_start, 0);
  EXPECT_EQ(small.log_end, 3);
  EXPECT_EQ(DroppedOffsets(*big), full.log_start);

  // A reader from the beginning starts at the first offset held, with no error or gap marker.
  auto consumer = TestConsumer::Create(bootstrap(), testsupport::UniqueName("g"), {"big"});
  ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
  auto got = (*consumer)->PollCount(static_cast<size_t>(full.log_end - full.log_start) + 3, 60s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  int64_t first = -1;
  for (const auto& m : *got) {
    if (m.partition == 0 && first < 0) first = m.offset;
  }
  EXPECT_EQ(first, full.log_start);

  // Every topic when none is named; a topic that never held much reads 0.
  auto all = (*reader)->Read("", 10s);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 3u);
  EXPECT_EQ(DroppedOffsets(*all), full.log_start);
}

TEST_F(MockRetention, ReaderNamesAMissingTopicAndDoesNotCreateIt) {
  auto reader = LogStartReader::Create(bootstrap());
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Read("missing", 10s).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(testsupport::PartitionCount(bootstrap(), "missing", 10s).status().code(),
            StatusCode::kNotFound);
}

TEST_F(MockRetention, WatchReportsEachPartitionOnceWhenItFirstDropsRecords) {
  std::mutex mu;
  std::vector<PartitionExtent> reported;
  auto watch = EvictionWatch::Start(bootstrap(), 50ms, [&](const PartitionExtent& e) {
    std::lock_guard<std::mutex> lock(mu);
    reported.push_back(e);
  });
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  auto count = [&] {
    std::lock_guard<std::mutex> lock(mu);
    return reported.size();
  };
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap(), "big", 0, 60));
  ASSERT_TRUE(testsupport::WaitFor([&] { return count() >= 1; }, 30s));
  // More drops on the same partition, then a first drop on another: only the latter is new.
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap(), "big", 0, 20));
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap(), "big", 1, 60));
  ASSERT_TRUE(testsupport::WaitFor([&] { return count() >= 2; }, 30s));
  const uint64_t passes = (*watch)->passes();
  ASSERT_TRUE(testsupport::WaitFor([&] { return (*watch)->passes() >= passes + 2; }, 30s));
  std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(reported.size(), 2u);
  EXPECT_EQ(reported[0].topic, "big");
  EXPECT_EQ(reported[0].partition, 0);
  EXPECT_GT(reported[0].log_start, 0);
  EXPECT_EQ(reported[1].topic, "big");
  EXPECT_EQ(reported[1].partition, 1);
}

TEST_F(MockRetention, WatchStaysQuietWhileNothingIsDropped) {
  int calls = 0;
  auto watch = EvictionWatch::Start(bootstrap(), 50ms, [&](const PartitionExtent&) { ++calls; });
  ASSERT_TRUE(watch.ok());
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap(), "big", 0, 10));
  const uint64_t passes = (*watch)->passes();
  ASSERT_TRUE(testsupport::WaitFor([&] { return (*watch)->passes() >= passes + 2; }, 30s));
  watch->reset();  // joins the watch's thread before `calls` is read
  EXPECT_EQ(calls, 0);
}

TEST(EvictionWatch, RefusesANonPositiveInterval) {
  EXPECT_EQ(EvictionWatch::Start("127.0.0.1:9", 0ms).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Validate(BrokerOptions{.eviction_watch_ms = -1}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace snowcar::broker
