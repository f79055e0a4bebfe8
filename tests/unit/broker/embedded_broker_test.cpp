// SPDX-License-Identifier: Apache-2.0
// Starting and stopping the embedded cluster, creating topics, argument checks of the hooks.
#include "snowcar/testbed/broker/embedded_broker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::broker {
namespace {

using namespace std::chrono_literals;
using testsupport::PartitionCount;

int CountCommas(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), ','));
}

TEST(EmbeddedBroker, StartsOneBrokerWithTopics) {
  auto started =
      EmbeddedBroker::Start({.brokers = 1, .topics = {{"orders", 3, 1}, {"audit", 1, 1}}});
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  EmbeddedBroker& b = **started;
  EXPECT_EQ(b.broker_count(), 1);
  EXPECT_EQ(CountCommas(b.bootstrap_servers()), 0);
  EXPECT_EQ(b.bootstrap_servers().rfind("127.0.0.1:", 0), 0u) << b.bootstrap_servers();

  auto orders = PartitionCount(b.bootstrap_servers(), "orders", 10s);
  ASSERT_TRUE(orders.ok()) << orders.status().ToString();
  EXPECT_EQ(*orders, 3);
  auto audit = PartitionCount(b.bootstrap_servers(), "audit", 10s);
  ASSERT_TRUE(audit.ok()) << audit.status().ToString();
  EXPECT_EQ(*audit, 1);
  EXPECT_EQ(PartitionCount(b.bootstrap_servers(), "missing", 10s).status().code(),
            StatusCode::kNotFound);
}

TEST(EmbeddedBroker, StartsThreeBrokersEachListening) {
  auto started = EmbeddedBroker::Start({.brokers = 3, .topics = {{"orders", 6, 3}}});
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  EmbeddedBroker& b = **started;
  EXPECT_EQ(b.broker_count(), 3);
  EXPECT_EQ(CountCommas(b.bootstrap_servers()), 2) << b.bootstrap_servers();
  // Every listed address is a broker of the same cluster: bootstrapping from any one of them
  // shows the topic.
  std::string rest = b.bootstrap_servers();
  for (int i = 0; i < 3; ++i) {
    const size_t comma = rest.find(',');
    const std::string one = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    auto n = PartitionCount(one, "orders", 10s);
    ASSERT_TRUE(n.ok()) << one << ": " << n.status().ToString();
    EXPECT_EQ(*n, 6);
  }
}

TEST(EmbeddedBroker, TwoClustersGetDifferentPorts) {
  auto a = EmbeddedBroker::Start({});
  auto b = EmbeddedBroker::Start({});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE((*a)->bootstrap_servers(), (*b)->bootstrap_servers());
}

class EmbeddedBrokerHooks : public testsupport::EmbeddedBrokerTest {
 protected:
  BrokerOptions Options() override { return {.brokers = 2}; }
};

TEST_F(EmbeddedBrokerHooks, CreateTopicThenRefusesDuplicate) {
  ASSERT_TRUE(broker().CreateTopic("fresh", 4, 2).ok());
  auto n = PartitionCount(bootstrap(), "fresh", 10s);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 4);
  Status again = broker().CreateTopic("fresh", 4, 2);
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists) << again.ToString();
  EXPECT_EQ(broker().CreateTopic("bad name", 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(broker().CreateTopic("rf", 1, 3).code(), StatusCode::kInvalidArgument);
}

TEST_F(EmbeddedBrokerHooks, HooksRejectUnknownBrokerIds) {
  for (int bad : {0, 3, -2}) {
    EXPECT_EQ(broker().SetBrokerDown(bad).code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(broker().SetBrokerUp(bad).code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(broker().SetRtt(bad, 10).code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(broker().PushBrokerErrors(bad, ApiKey::kProduce, {{}}).code(),
              StatusCode::kInvalidArgument);
  }
  Status s = broker().SetBrokerDown(3);
  EXPECT_NE(s.message().find("broker id 3"), std::string::npos) << s.message();
  EXPECT_EQ(broker().SetRtt(1, -1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(broker().PushBrokerErrors(kAllBrokers, ApiKey::kProduce, {{}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(broker().SetCoordinator(CoordinatorKind::kGroup, "", 1).code(),
            StatusCode::kInvalidArgument);
  // kAllBrokers is fine where documented.
  EXPECT_TRUE(broker().SetRtt(kAllBrokers, 0).ok());
  EXPECT_TRUE(broker().SetBrokerUp(kAllBrokers).ok());
}

TEST_F(EmbeddedBrokerHooks, BrokerErrorScriptIsCountedUntilUsed) {
  ASSERT_TRUE(broker()
                  .PushBrokerErrors(2, ApiKey::kProduce,
                                    {{RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, 0},
                                     {RD_KAFKA_RESP_ERR_NO_ERROR, 50}})
                  .ok());
  auto pending = broker().PendingBrokerErrors(2, ApiKey::kProduce);
  ASSERT_TRUE(pending.ok()) << pending.status().ToString();
  EXPECT_EQ(*pending, 2u);
  auto other = broker().PendingBrokerErrors(1, ApiKey::kProduce);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(*other, 0u);
}

class SharedSuite : public testsupport::SharedBrokerTest<SharedSuite> {
 public:
  static BrokerOptions SuiteOptions() { return {.brokers = 2, .topics = {{"shared", 2, 1}}}; }
};

TEST_F(SharedSuite, SuiteBrokerIsStartedWithTheSuiteOptions) {
  EXPECT_EQ(broker().broker_count(), 2);
  auto n = PartitionCount(bootstrap(), "shared", 10s);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, 2);
  auto r =
      testsupport::ProduceMessages(bootstrap(), "shared", testsupport::NumberedMessages(0, 3), 30s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->size(), 3u);
}

}  // namespace
}  // namespace snowcar::broker
