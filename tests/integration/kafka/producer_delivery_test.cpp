// SPDX-License-Identifier: Apache-2.0
// KafkaProducer against the embedded broker: what arrives, where, in which order, and where
// the delivery callbacks run.
#include <gtest/gtest.h>

#include <boost/asio/strand.hpp>
#include <boost/json.hpp>
#include <map>
#include <set>
#include <thread>

#include "murmur2.h"
#include "partition_reader.h"
#include "report_collector.h"
#include "snowcar/kafka/producer.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"
#include "test_pool.h"

namespace snowcar::kafka {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::ReadFromStart;
using testing::ReportCollector;
using testsupport::UniqueName;
using testsupport::WaitFor;

class ProducerDelivery : public testsupport::SharedBrokerTest<ProducerDelivery> {
 protected:
  void TearDown() override { pool_.Join(); }

  std::unique_ptr<KafkaProducer> MakeProducer(std::map<std::string, std::string> extra = {}) {
    return testing::MakeProducer(bootstrap(), std::move(extra));
  }

  std::string NewTopic(int partitions) {
    std::string topic = UniqueName("produce");
    EXPECT_TRUE(broker().CreateTopic(topic, partitions).ok());
    return topic;
  }

  testing::TestPool pool_;
};

// The partitions of `topic` librdkafka's statistics list (its metadata), none before it
// learned the topic.
std::set<std::string> KnownPartitions(const std::string& statistics, const std::string& topic) {
  std::set<std::string> out;
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(statistics, ec);
  if (ec || !v.is_object()) return out;
  const auto* topics = v.as_object().if_contains("topics");
  const auto* t =
      topics != nullptr && topics->is_object() ? topics->as_object().if_contains(topic) : nullptr;
  const auto* parts =
      t != nullptr && t->is_object() ? t->as_object().if_contains("partitions") : nullptr;
  if (parts == nullptr || !parts->is_object()) return out;
  for (const auto& [id, p] : parts->as_object()) {
    if (id != "-1") out.insert(std::string(id));  // -1: librdkafka's queue for no partition
  }
  return out;
}

// The source asks for its tables' topics at start, so the first record does not wait for
// librdkafka to learn its topic: the partitions are known before any record is produced.
TEST_F(ProducerDelivery, PrepareTopicsLearnsTheTopicsPartitionsBeforeAnyRecord) {
  const std::string prepared = NewTopic(3);
  const std::string other = NewTopic(2);
  auto producer = MakeProducer({{"statistics.interval.ms", "100"}});
  ASSERT_NE(producer, nullptr);
  producer->PrepareTopics({prepared});
  std::string stats;
  ASSERT_TRUE(WaitFor(
      [&] {
        stats = producer->LastStatisticsJson();
        return KnownPartitions(stats, prepared).size() == 3;
      },
      seconds(10)))
      << stats;
  EXPECT_EQ(KnownPartitions(stats, prepared), (std::set<std::string>{"0", "1", "2"}));
  EXPECT_TRUE(KnownPartitions(stats, other).empty()) << "only the topics asked for";
  EXPECT_EQ(producer->stats().produced, 0);
}

TEST_F(ProducerDelivery, RoundTripsKeyValueHeadersAndTimestamp) {
  const std::string topic = NewTopic(2);
  auto producer = MakeProducer();
  ASSERT_NE(producer, nullptr);
  OutRecord r;
  r.topic = topic;
  r.partition = 1;
  r.key = "sys-id-1";
  r.value = R"({"number":"INC001"})";
  r.headers = {{"snow.table", "incident"},
               {"empty", ""},
               {"nothing", std::nullopt},
               {"snow.table", "again"}};
  r.timestamp_ms = 1'700'000'000'123;
  ReportCollector reports(1);
  producer->Produce(r, pool_.executor(), reports.For(0));
  ASSERT_TRUE(WaitFor([&] { return reports.total() == 1; }, seconds(10)));
  const DeliveryReport report = reports.report(0);
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
  EXPECT_EQ(report.partition, 1);
  EXPECT_EQ(report.offset, 0);

  auto read = ReadFromStart(bootstrap(), topic, 2, 1, seconds(10));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 1u);
  const InRecord& got = read->front();
  EXPECT_EQ(got.partition, 1);
  EXPECT_EQ(got.key, r.key);
  EXPECT_EQ(got.value, r.value);
  EXPECT_EQ(got.headers, r.headers);  // order, repeats, empty and null values kept
  EXPECT_EQ(got.timestamp_ms, r.timestamp_ms);
}

TEST_F(ProducerDelivery, TombstoneAndMissingKeyStayNull) {
  const std::string topic = NewTopic(1);
  auto producer = MakeProducer();
  ASSERT_NE(producer, nullptr);
  OutRecord r;
  r.topic = topic;
  ReportCollector reports(1);
  producer->Produce(r, pool_.executor(), reports.For(0));
  ASSERT_TRUE(producer->Flush(seconds(10)).ok());
  ASSERT_TRUE(WaitFor([&] { return reports.total() == 1; }, seconds(5)));
  EXPECT_EQ(reports.FirstError(), "");
  auto read = ReadFromStart(bootstrap(), topic, 1, 1, seconds(10));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_FALSE(read->front().key.has_value());
  EXPECT_FALSE(read->front().value.has_value());
  EXPECT_TRUE(read->front().headers.empty());
  EXPECT_GT(read->front().timestamp_ms, 0);  // 0 asked for the producer's clock
}

TEST_F(ProducerDelivery, KeyedRecordsLandWhereJavaMurmur2PutsThem) {
  constexpr int kPartitions = 7;
  constexpr int kKeys = 200;
  const std::string topic = NewTopic(kPartitions);
  auto producer = MakeProducer();
  ASSERT_NE(producer, nullptr);
  ReportCollector reports(kKeys);
  for (int i = 0; i < kKeys; ++i) {
    OutRecord r;
    r.topic = topic;
    r.key = "a1b2c3d4e5f6" + std::to_string(i * 7919);
    r.value = "v";
    producer->Produce(std::move(r), pool_.executor(), reports.For(i));
  }
  ASSERT_TRUE(producer->Flush(seconds(20)).ok());
  ASSERT_TRUE(WaitFor([&] { return reports.total() == kKeys; }, seconds(5)));
  ASSERT_EQ(reports.FirstError(), "");
  std::map<int32_t, int> used;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "a1b2c3d4e5f6" + std::to_string(i * 7919);
    EXPECT_EQ(reports.report(i).partition, testing::JavaPartitionFor(key, kPartitions))
        << "key " << key;
    ++used[reports.report(i).partition];
  }
  EXPECT_EQ(used.size(), static_cast<size_t>(kPartitions));  // the keys spread over all

  // librdkafka's own murmur2_random partitioner (set explicitly) agrees record by record.
  auto reference =
      testsupport::TestProducer::Create(bootstrap(), {{"partitioner", "murmur2_random"}});
  ASSERT_TRUE(reference.ok());
  std::vector<testsupport::OutMessage> same;
  for (int i = 0; i < kKeys; ++i) {
    testsupport::OutMessage m;
    m.key = "a1b2c3d4e5f6" + std::to_string(i * 7919);
    m.value = "v";
    same.push_back(m);
  }
  auto ref_reports = (*reference)->ProduceAll(topic, same, seconds(20));
  ASSERT_TRUE(ref_reports.ok());
  std::map<std::string, int32_t> by_key;
  for (const auto& rr : *ref_reports) by_key[rr.key] = rr.partition;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "a1b2c3d4e5f6" + std::to_string(i * 7919);
    EXPECT_EQ(reports.report(i).partition, by_key[key]) << "key " << key;
  }
}

TEST_F(ProducerDelivery, KeepsProduceOrderPerPartitionFor10000Records) {
  constexpr int kPartitions = 3;
  constexpr int kRecords = 10'000;
  constexpr int kKeys = 40;
  const std::string topic = NewTopic(kPartitions);
  auto producer = MakeProducer();
  ASSERT_NE(producer, nullptr);
  ReportCollector reports(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    OutRecord r;
    r.topic = topic;
    r.key = "key-" + std::to_string(i % kKeys);
    r.value = std::to_string(i);
    producer->Produce(std::move(r), pool_.executor(), reports.For(i));
  }
  ASSERT_TRUE(producer->Flush(seconds(60)).ok());
  ASSERT_TRUE(WaitFor([&] { return reports.total() == kRecords; }, seconds(10)));
  ASSERT_EQ(reports.FirstError(), "");
  EXPECT_TRUE(reports.NotExactlyOnce().empty());

  // The reported offsets grow with Produce() order inside each partition.
  std::map<int32_t, int64_t> last_offset;
  for (int i = 0; i < kRecords; ++i) {
    const DeliveryReport rep = reports.report(i);
    auto [it, first] = last_offset.emplace(rep.partition, rep.offset);
    if (!first) {
      ASSERT_GT(rep.offset, it->second) << "record " << i;
      it->second = rep.offset;
    }
  }
  // And the broker's log agrees: per partition, values in increasing order, none missing.
  auto read = ReadFromStart(bootstrap(), topic, kPartitions, kRecords, seconds(60));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), static_cast<size_t>(kRecords));
  std::map<int32_t, int> last_value;
  std::vector<bool> seen(kRecords, false);
  for (const InRecord& rec : *read) {
    const int v = std::stoi(*rec.value);
    ASSERT_FALSE(seen[v]) << "duplicate " << v;
    seen[v] = true;
    auto [it, first] = last_value.emplace(rec.partition, v);
    if (!first) {
      ASSERT_GT(v, it->second) << "partition " << rec.partition;
      it->second = v;
    }
  }
}

TEST_F(ProducerDelivery, CallbacksRunOnTheGivenStrandExactlyOnce) {
  constexpr int kRecords = 300;
  const std::string topic = NewTopic(2);
  auto producer = MakeProducer();
  ASSERT_NE(producer, nullptr);
  auto strand_a = boost::asio::make_strand(pool_.executor());
  auto strand_b = boost::asio::make_strand(pool_.executor());
  using Strand = decltype(strand_a);
  ReportCollector reports(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    const Strand* strand = i % 2 == 0 ? &strand_a : &strand_b;
    OutRecord r;
    r.topic = topic;
    r.key = std::to_string(i);
    r.value = "x";
    producer->Produce(std::move(r), *strand, reports.For(i, strand));
  }
  ASSERT_TRUE(producer->Flush(seconds(20)).ok());
  ASSERT_TRUE(WaitFor([&] { return reports.total() == kRecords; }, seconds(5)));
  producer->Close(seconds(5));
  pool_.Join();  // every posted callback has run
  EXPECT_EQ(reports.FirstError(), "");
  EXPECT_EQ(reports.off_strand(), 0);
  EXPECT_TRUE(reports.NotExactlyOnce().empty());
  EXPECT_EQ(reports.total(), static_cast<size_t>(kRecords));
  const auto stats = producer->stats();
  EXPECT_EQ(stats.produced, kRecords);
  EXPECT_EQ(stats.delivered, kRecords);
  EXPECT_EQ(stats.failed, 0);
  EXPECT_EQ(stats.in_flight, 0);
  EXPECT_EQ(stats.queued, 0);
}

TEST_F(ProducerDelivery, QueueFullRecordsWaitInOrderAndNoneIsLost) {
  constexpr int kRecords = 5'000;
  const std::string topic = NewTopic(1);
  auto producer = MakeProducer({{"queue.buffering.max.messages", "10"}, {"linger.ms", "1"}});
  ASSERT_NE(producer, nullptr);
  ReportCollector reports(kRecords);
  auto strand = boost::asio::make_strand(pool_.executor());
  for (int i = 0; i < kRecords; ++i) {
    OutRecord r;
    r.topic = topic;
    r.key = "same-key";
    r.value = std::to_string(i);
    producer->Produce(std::move(r), strand, reports.For(i));
  }
  // librdkafka holds at most 10, so most records had to wait inside the producer.
  EXPECT_GT(producer->stats().queued, 0);
  EXPECT_LE(producer->stats().in_flight, 10);
  ASSERT_TRUE(producer->Flush(seconds(60)).ok());
  ASSERT_TRUE(WaitFor([&] { return reports.total() == kRecords; }, seconds(10)));
  EXPECT_EQ(reports.FirstError(), "");
  EXPECT_TRUE(reports.NotExactlyOnce().empty());
  for (int i = 0; i < kRecords; ++i) ASSERT_EQ(reports.report(i).offset, i) << "record " << i;

  auto read = ReadFromStart(bootstrap(), topic, 1, kRecords, seconds(60));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), static_cast<size_t>(kRecords));
  for (int i = 0; i < kRecords; ++i) ASSERT_EQ((*read)[i].value, std::to_string(i));
}

TEST_F(ProducerDelivery, ConcurrentProducersEachKeepTheirOrder) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 2'000;
  const std::string topic = NewTopic(3);
  auto producer = MakeProducer({{"queue.buffering.max.messages", "500"}});
  ASSERT_NE(producer, nullptr);
  ReportCollector reports(static_cast<size_t>(kThreads) * kPerThread);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto strand = boost::asio::make_strand(pool_.executor());
      for (int i = 0; i < kPerThread; ++i) {
        OutRecord r;
        r.topic = topic;
        r.key = "thread-" + std::to_string(t);  // one key per thread: one partition each
        r.value = std::to_string(i);
        producer->Produce(std::move(r), strand, reports.For(t * kPerThread + i));
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_TRUE(producer->Flush(seconds(60)).ok());
  ASSERT_TRUE(WaitFor([&] { return reports.total() == static_cast<size_t>(kThreads) * kPerThread; },
                      seconds(10)));
  EXPECT_EQ(reports.FirstError(), "");
  EXPECT_TRUE(reports.NotExactlyOnce().empty());
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 1; i < kPerThread; ++i) {
      const DeliveryReport prev = reports.report(t * kPerThread + i - 1);
      const DeliveryReport cur = reports.report(t * kPerThread + i);
      ASSERT_EQ(cur.partition, prev.partition);
      ASSERT_GT(cur.offset, prev.offset) << "thread " << t << " record " << i;
    }
  }
}

}  // namespace
}  // namespace snowcar::kafka
