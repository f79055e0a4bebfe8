// SPDX-License-Identifier: Apache-2.0
// KafkaProducer when things go wrong: the broker goes away, the producer closes with records
// still pending, Flush runs out of time.
#include <gtest/gtest.h>

#include <boost/asio/strand.hpp>
#include <map>

#include "partition_reader.h"
#include "report_collector.h"
#include "snowcar/kafka/producer.h"
#include "support/broker_fixture.h"
#include "support/wait.h"
#include "test_pool.h"

namespace snowcar::kafka {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::ReportCollector;

constexpr char kTopic[] = "faults";

class ProducerFaults : public testsupport::EmbeddedBrokerTest {
 protected:
  broker::BrokerOptions Options() override { return {.brokers = 1, .topics = {{kTopic, 2}}}; }
  void TearDown() override {
    pool_.Join();
    EmbeddedBrokerTest::TearDown();
  }

  std::unique_ptr<KafkaProducer> MakeProducer(std::map<std::string, std::string> extra = {}) {
    return testing::MakeProducer(bootstrap(), std::move(extra));
  }

  static OutRecord Record(int i) {
    OutRecord r;
    r.topic = kTopic;
    r.key = "key-" + std::to_string(i);
    r.value = "value-" + std::to_string(i);
    return r;
  }

  // Produces one record and waits for its report, so the producer is connected and has its
  // idempotent producer id before a fault is injected.
  void WarmUp(KafkaProducer& producer) {
    ReportCollector warm(1);
    producer.Produce(Record(-1), pool_.executor(), warm.For(0));
    ASSERT_TRUE(testsupport::WaitFor([&] { return warm.total() == 1; }, seconds(10)));
    ASSERT_TRUE(warm.report(0).status.ok()) << warm.report(0).status.ToString();
  }

  testing::TestPool pool_;
};

TEST_F(ProducerFaults, BrokerDownPastMessageTimeoutReportsARetriableErrorNamingThePartition) {
  auto producer = MakeProducer({{"message.timeout.ms", "1500"}});
  ASSERT_NE(producer, nullptr);
  WarmUp(*producer);
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  OutRecord r = Record(1);
  r.partition = 1;
  ReportCollector reports(1);
  producer->Produce(r, pool_.executor(), reports.For(0));
  ASSERT_TRUE(testsupport::WaitFor([&] { return reports.total() == 1; }, seconds(15)));
  const Status& s = reports.report(0).status;
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_TRUE(s.retriable());
  EXPECT_NE(s.message().find("faults/1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("timed out"), std::string::npos) << s.message();
  EXPECT_EQ(reports.report(0).offset, -1);
  EXPECT_EQ(producer->stats().failed, 1);
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
}

TEST_F(ProducerFaults, BrokerDownThenBackUpDeliversEverythingOnceInOrder) {
  constexpr int kRecords = 50;
  auto producer = MakeProducer({{"message.timeout.ms", "30000"}});
  ASSERT_NE(producer, nullptr);
  WarmUp(*producer);
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  ReportCollector reports(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    OutRecord r = Record(i);
    r.partition = 0;
    producer->Produce(std::move(r), pool_.executor(), reports.For(i));
  }
  EXPECT_FALSE(producer->Flush(milliseconds(300)).ok());  // nothing can be acknowledged yet
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
  ASSERT_TRUE(producer->Flush(seconds(25)).ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return reports.total() == kRecords; }, seconds(5)));
  EXPECT_EQ(reports.FirstError(), "");
  EXPECT_TRUE(reports.NotExactlyOnce().empty());
  auto read = testing::ReadFromStart(bootstrap(), kTopic, 1, kRecords + 1, seconds(20));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), static_cast<size_t>(kRecords + 1));  // + the warm-up record
  for (int i = 0; i < kRecords; ++i) EXPECT_EQ((*read)[i + 1].value, "value-" + std::to_string(i));
}

TEST_F(ProducerFaults, FlushTimesOutNamingWhatIsLeft) {
  auto producer = MakeProducer({{"message.timeout.ms", "30000"}});
  ASSERT_NE(producer, nullptr);
  WarmUp(*producer);
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  ReportCollector reports(3);
  for (int i = 0; i < 3; ++i) producer->Produce(Record(i), pool_.executor(), reports.For(i));
  const Status s = producer->Flush(milliseconds(200));
  EXPECT_EQ(s.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(s.message().find("3 record(s)"), std::string::npos) << s.message();
  producer->Close(milliseconds(0));
  // Each record gets its (cancelled) report; waiting for them also keeps `reports` alive
  // until the pool has run every callback that points at it.
  ASSERT_TRUE(testsupport::WaitFor([&] { return reports.total() == 3; }, seconds(10)));
  EXPECT_TRUE(reports.NotExactlyOnce().empty());
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
}

TEST_F(ProducerFaults, CloseWithPendingRecordsCancelsEachExactlyOnce) {
  constexpr int kRecords = 40;
  auto producer =
      MakeProducer({{"message.timeout.ms", "60000"}, {"queue.buffering.max.messages", "10"}});
  ASSERT_NE(producer, nullptr);
  WarmUp(*producer);
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  auto strand = boost::asio::make_strand(pool_.executor());
  ReportCollector reports(kRecords);
  // Some records sit in librdkafka, the rest in the producer's queue-full FIFO.
  for (int i = 0; i < kRecords; ++i) {
    producer->Produce(Record(i), strand, reports.For(i, &strand));
  }
  EXPECT_GT(producer->stats().queued, 0);
  producer->Close(milliseconds(200));
  // A record produced after Close is cancelled too, not dropped.
  ReportCollector late(1);
  producer->Produce(Record(99), strand, late.For(0));
  producer.reset();  // the destructor must not report anything a second time
  pool_.Join();
  EXPECT_TRUE(reports.NotExactlyOnce().empty());
  EXPECT_EQ(reports.off_strand(), 0);
  for (int i = 0; i < kRecords; ++i) {
    EXPECT_EQ(reports.report(i).status.code(), StatusCode::kCancelled)
        << i << ": " << reports.report(i).status.ToString();
  }
  EXPECT_NE(reports.report(0).status.message().find("closed"), std::string::npos);
  EXPECT_EQ(late.calls(0), 1);
  EXPECT_EQ(late.report(0).status.code(), StatusCode::kCancelled);
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
}

TEST_F(ProducerFaults, CloseAfterDeliveryReportsNothingMore) {
  auto producer = MakeProducer();
  ASSERT_NE(producer, nullptr);
  ReportCollector reports(5);
  for (int i = 0; i < 5; ++i) producer->Produce(Record(i), pool_.executor(), reports.For(i));
  producer->Close(seconds(10));  // flushes first: everything is delivered, nothing cancelled
  producer->Close(seconds(10));  // idempotent
  pool_.Join();
  EXPECT_EQ(reports.FirstError(), "");
  EXPECT_TRUE(reports.NotExactlyOnce().empty());
  EXPECT_EQ(producer->stats().delivered, 5);
}

TEST_F(ProducerFaults, MetadataReachableFollowsTheBroker) {
  auto producer = MakeProducer();
  ASSERT_NE(producer, nullptr);
  EXPECT_TRUE(producer->MetadataReachable(seconds(5)));
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  EXPECT_FALSE(producer->MetadataReachable(milliseconds(500)));
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
  EXPECT_TRUE(testsupport::WaitFor([&] { return producer->MetadataReachable(milliseconds(500)); },
                                   seconds(10)));
  producer->Close(milliseconds(0));
  EXPECT_FALSE(producer->MetadataReachable(milliseconds(100)));
}

TEST_F(ProducerFaults, PermanentErrorIsNotRetriableAndTheNextRecordGoesThrough) {
  auto producer = MakeProducer({{"message.max.bytes", "2000"}});
  ASSERT_NE(producer, nullptr);
  ReportCollector reports(2);
  OutRecord big = Record(0);
  big.value = std::string(10'000, 'x');
  producer->Produce(big, pool_.executor(), reports.For(0));
  producer->Produce(Record(1), pool_.executor(), reports.For(1));
  ASSERT_TRUE(testsupport::WaitFor([&] { return reports.total() == 2; }, seconds(10)));
  const Status& s = reports.report(0).status;
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.retriable()) << s.ToString();
  EXPECT_NE(s.message().find(kTopic), std::string::npos) << s.message();
  EXPECT_TRUE(reports.report(1).status.ok()) << reports.report(1).status.ToString();
}

}  // namespace
}  // namespace snowcar::kafka
