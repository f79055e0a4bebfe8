// SPDX-License-Identifier: Apache-2.0
// KafkaConsumer when the group coordinator goes away longer than the session timeout: the
// member's partitions are lost, not revoked, and what it stored is not committed.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include "consumer_helpers.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::kafka {
namespace {

using std::chrono::seconds;
using testing::PollUntil;
using testing::TestConsumerOptions;

constexpr char kTopic[] = "lost";

class ConsumerLost : public testsupport::EmbeddedBrokerTest {
 protected:
  broker::BrokerOptions Options() override { return {.brokers = 1, .topics = {{kTopic, 2}}}; }
};

TEST_F(ConsumerLost, SessionTimeoutGoesToOnLostAndCommitsNothing) {
  ASSERT_TRUE(testsupport::ProduceMessages(bootstrap(), kTopic, testsupport::NumberedMessages(0, 6),
                                           seconds(10))
                  .ok());
  std::vector<TopicPartition> assigned, revoked, lost;
  ConsumerOptions options = TestConsumerOptions(bootstrap(), "lost-group", {kTopic},
                                                {{"enable.auto.commit", "false"},
                                                 {"reconnect.backoff.max.ms", "500"},
                                                 {"session.timeout.ms", "4000"}});
  options.listener.on_assigned = [&](const auto& tps) {
    assigned.insert(assigned.end(), tps.begin(), tps.end());
  };
  options.listener.on_revoked = [&](const auto& tps) {
    revoked.insert(revoked.end(), tps.begin(), tps.end());
  };
  options.listener.on_lost = [&](const auto& tps) {
    lost.insert(lost.end(), tps.begin(), tps.end());
  };
  auto c = KafkaConsumer::Create(options);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  KafkaConsumer& consumer = **c;

  std::vector<InRecord> got;
  ASSERT_TRUE(PollUntil(
      consumer, got, [&] { return got.size() >= 6; }, seconds(20)));
  ASSERT_EQ(assigned.size(), 2u);
  for (int p = 0; p < 2; ++p) ASSERT_TRUE(consumer.StoreOffset({kTopic, p}, 1).ok());

  // The coordinator disappears for longer than session.timeout.ms (4 s): keep polling, as the
  // sink does, until librdkafka declares the assignment lost.
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  ASSERT_TRUE(PollUntil(
      consumer, got, [&] { return !lost.empty(); }, seconds(20)));
  EXPECT_EQ(lost.size(), 2u);
  EXPECT_TRUE(revoked.empty()) << "a lost assignment must not go through on_revoked";
  EXPECT_GE(consumer.stats().lost, 1);
  EXPECT_TRUE(consumer.Assignment().empty());

  // Back up: the member rejoins, and nothing it had stored was committed.
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
  assigned.clear();
  ASSERT_TRUE(PollUntil(
      consumer, got, [&] { return assigned.size() == 2; }, seconds(30)));
  auto committed = consumer.Committed({{kTopic, 0}, {kTopic, 1}}, seconds(5));
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_EQ(committed->at({kTopic, 0}), RD_KAFKA_OFFSET_INVALID);
  EXPECT_EQ(committed->at({kTopic, 1}), RD_KAFKA_OFFSET_INVALID);
  EXPECT_GT(consumer.stats().errors, 0);  // the outage was logged and counted, not returned
}

TEST_F(ConsumerLost, CloseIsBoundedWhileTheCoordinatorIsUnreachable) {
  ASSERT_TRUE(testsupport::ProduceMessages(bootstrap(), kTopic, testsupport::NumberedMessages(0, 2),
                                           seconds(10))
                  .ok());
  auto options = TestConsumerOptions(bootstrap(), "close-group", {kTopic});
  // librdkafka's default 45 s session: its own close would wait that long for the coordinator.
  options.properties.erase("session.timeout.ms");
  options.commit_timeout = seconds(2);
  options.close_timeout = seconds(4);
  int revokes = 0;
  options.listener.on_revoked = [&](const auto&) { ++revokes; };
  auto c = KafkaConsumer::Create(options);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  std::vector<InRecord> got;
  ASSERT_TRUE(PollUntil(
      **c, got, [&] { return got.size() >= 2; }, seconds(20)));
  ASSERT_TRUE((*c)->StoreOffset({kTopic, got[0].partition}, got[0].offset + 1).ok());
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  const auto start = std::chrono::steady_clock::now();
  (*c)->Close();
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, seconds(20)) << "Close waited for the session timeout";
  EXPECT_EQ(revokes, 1);  // the listener still ran on the way out
  EXPECT_GE((*c)->stats().commit_failures, 1);
  EXPECT_FALSE((*c)->Poll(std::chrono::milliseconds(1)).ok());
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
}

}  // namespace
}  // namespace snowcar::kafka
