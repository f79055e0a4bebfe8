// SPDX-License-Identifier: Apache-2.0
// The hooks that act on cluster layout (partition leaders, coordinators, metadata errors,
// dropped connections), seen from real clients on a three-broker cluster.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "snowcar/testbed/broker/embedded_broker.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::broker {
namespace {

using namespace std::chrono_literals;
using testsupport::DeliveryReport;
using testsupport::TestConsumer;
using testsupport::TestProducer;
using testsupport::UniqueName;

class ClusterHooks : public testsupport::EmbeddedBrokerTest {
 protected:
  BrokerOptions Options() override { return {.brokers = 3, .topics = {{"m", 1, 3}}}; }

  void ExpectAllDelivered(const std::vector<DeliveryReport>& reports, size_t n) {
    ASSERT_EQ(reports.size(), n);
    for (const DeliveryReport& r : reports) {
      EXPECT_EQ(r.error, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(r.error);
    }
  }
};

TEST_F(ClusterHooks, ProducerFollowsALeaderMovedAwayFromADownBroker) {
  ASSERT_TRUE(broker().SetPartitionLeader("m", 0, 1).ok());
  auto producer = TestProducer::Create(bootstrap(), {{"message.timeout.ms", "60000"}});
  ASSERT_TRUE(producer.ok());
  auto first = (*producer)->ProduceAll("m", testsupport::NumberedMessages(0, 5), 30s);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ExpectAllDelivered(*first, 5);

  // Broker 1 goes away and the partition moves to broker 2, as a real cluster would do.
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  ASSERT_TRUE(broker().SetPartitionLeader("m", 0, 2).ok());
  auto second = (*producer)->ProduceAll("m", testsupport::NumberedMessages(5, 5), 60s);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ExpectAllDelivered(*second, 5);

  // The log moved with the leadership: all ten, in order, once. (The mock does not move group
  // coordinators off a down broker either, so pin this group's to a live one.)
  const std::string group = UniqueName("g");
  ASSERT_TRUE(broker().SetCoordinator(CoordinatorKind::kGroup, group, 2).ok());
  auto consumer = TestConsumer::Create(bootstrap(), group, {"m"});
  ASSERT_TRUE(consumer.ok());
  auto got = (*consumer)->PollCount(10, 60s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_EQ((*got)[i].Header("seq"), std::to_string(i));
  }
  EXPECT_TRUE((*consumer)->PollFor(300ms).empty());
}

TEST_F(ClusterHooks, DroppedConnectionOnProduceIsRetriedOnce) {
  ASSERT_TRUE(broker().PushRequestErrors(ApiKey::kProduce, {RD_KAFKA_RESP_ERR__TRANSPORT}).ok());
  auto reports =
      testsupport::ProduceMessages(bootstrap(), "m", testsupport::NumberedMessages(0, 3), 30s);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ExpectAllDelivered(*reports, 3);
  auto got = testsupport::ConsumeMessages(bootstrap(), UniqueName("g"), "m", 3, 60s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->back().offset, 2) << "a retried batch was written twice";
}

TEST_F(ClusterHooks, TopicErrorShowsInMetadataUntilCleared) {
  ASSERT_TRUE(broker().SetTopicError("m", RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE).ok());
  auto hidden = testsupport::PartitionCount(bootstrap(), "m", 10s);
  EXPECT_EQ(hidden.status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(broker().SetTopicError("m", RD_KAFKA_RESP_ERR_NO_ERROR).ok());
  auto visible = testsupport::PartitionCount(bootstrap(), "m", 10s);
  ASSERT_TRUE(visible.ok()) << visible.status().ToString();
  EXPECT_EQ(*visible, 1);
}

TEST_F(ClusterHooks, GroupWaitsForItsPinnedCoordinator) {
  ASSERT_TRUE(
      testsupport::ProduceMessages(bootstrap(), "m", testsupport::NumberedMessages(0, 2), 30s)
          .ok());
  const std::string group = UniqueName("pinned");
  ASSERT_TRUE(broker().SetCoordinator(CoordinatorKind::kGroup, group, 3).ok());
  ASSERT_TRUE(broker().SetBrokerDown(3).ok());
  auto consumer = TestConsumer::Create(bootstrap(), group, {"m"});
  ASSERT_TRUE(consumer.ok());
  // Without its coordinator the group cannot form, so nothing is consumed...
  auto starved = (*consumer)->PollCount(1, 5s);
  EXPECT_EQ(starved.status().code(), StatusCode::kDeadlineExceeded);
  // ...until the coordinator is back.
  ASSERT_TRUE(broker().SetBrokerUp(3).ok());
  auto got = (*consumer)->PollCount(2, 60s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
}

}  // namespace
}  // namespace snowcar::broker
