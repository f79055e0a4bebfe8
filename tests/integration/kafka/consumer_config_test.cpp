// SPDX-License-Identifier: Apache-2.0
// KafkaConsumer::Create: what it requires, refuses, forces and defaults.
#include <gtest/gtest.h>

#include "consumer_helpers.h"
#include "support/broker_fixture.h"
#include "support/wait.h"

namespace snowcar::kafka {
namespace {

using testing::TestConsumerOptions;

class ConsumerConfig : public testsupport::SharedBrokerTest<ConsumerConfig> {};

TEST_F(ConsumerConfig, GroupIdIsRequired) {
  ConsumerOptions options = TestConsumerOptions(bootstrap(), "g", {"t"});
  options.properties.erase("group.id");
  auto c = KafkaConsumer::Create(options);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("group.id"), std::string::npos);
}

TEST_F(ConsumerConfig, BootstrapServersIsRequired) {
  ConsumerOptions options = TestConsumerOptions(bootstrap(), "g", {"t"});
  options.properties.erase("bootstrap.servers");
  auto c = KafkaConsumer::Create(options);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("bootstrap.servers"), std::string::npos);
}

TEST_F(ConsumerConfig, TopicsAreRequired) {
  auto c = KafkaConsumer::Create(TestConsumerOptions(bootstrap(), "g", {}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("topics"), std::string::npos);
}

TEST_F(ConsumerConfig, AutomaticOffsetStoreIsRefused) {
  auto c = KafkaConsumer::Create(
      TestConsumerOptions(bootstrap(), "g", {"t"}, {{"enable.auto.offset.store", "true"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("enable.auto.offset.store"), std::string::npos);
}

TEST_F(ConsumerConfig, BadPropertyIsRefusedByName) {
  auto c = KafkaConsumer::Create(
      TestConsumerOptions(bootstrap(), "g", {"t"}, {{"auto.offset.reset", "sideways"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("auto.offset.reset"), std::string::npos);
}

TEST_F(ConsumerConfig, ProducerOnlyPropertiesAreDroppedNotRefused) {
  auto c = KafkaConsumer::Create(
      TestConsumerOptions(bootstrap(), "g", {"t"},
                          {{"acks", "all"}, {"linger.ms", "5"}, {"enable.idempotence", "true"}}));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
}

}  // namespace
}  // namespace snowcar::kafka
