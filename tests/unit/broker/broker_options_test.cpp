// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/broker/broker_options.h"

#include <gtest/gtest.h>

#include "snowcar/testbed/broker/api_key.h"
#include "snowcar/testbed/broker/embedded_broker.h"

namespace snowcar::broker {
namespace {

TEST(ParseTopicSpecs, ReadsNamesCountsAndReplication) {
  auto specs = ParseTopicSpecs("orders:3,audit,events:6:2", 4);
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), 3u);
  EXPECT_EQ((*specs)[0].name, "orders");
  EXPECT_EQ((*specs)[0].partitions, 3);
  EXPECT_EQ((*specs)[0].replication_factor, 1);
  EXPECT_EQ((*specs)[1].name, "audit");
  EXPECT_EQ((*specs)[1].partitions, 4);  // the default
  EXPECT_EQ((*specs)[2].partitions, 6);
  EXPECT_EQ((*specs)[2].replication_factor, 2);
}

TEST(ParseTopicSpecs, EmptyTextMeansNoTopics) {
  auto specs = ParseTopicSpecs("");
  ASSERT_TRUE(specs.ok());
  EXPECT_TRUE(specs->empty());
}

TEST(ParseTopicSpecs, RejectsBadItemsNamingThem) {
  struct Case {
    const char* text;
    const char* mentions;
  };
  for (const Case& c :
       {Case{"orders:x", "'x' is not a whole number"}, Case{"orders:0", "at least 1"},
        Case{"a,,b", "empty item"}, Case{"bad/name:2", "bad/name"},
        Case{"orders:2:", "replication factor"}, Case{"orders:-3", "'orders:-3'"}}) {
    auto specs = ParseTopicSpecs(c.text);
    ASSERT_FALSE(specs.ok()) << c.text;
    EXPECT_EQ(specs.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(specs.status().message().find(c.mentions), std::string::npos)
        << c.text << " -> " << specs.status().message();
  }
}

TEST(ValidateTopicName, FollowsKafkaRules) {
  EXPECT_TRUE(ValidateTopicName("snow.incident-v1_2").ok());
  EXPECT_FALSE(ValidateTopicName("").ok());
  EXPECT_FALSE(ValidateTopicName(".").ok());
  EXPECT_FALSE(ValidateTopicName("..").ok());
  EXPECT_FALSE(ValidateTopicName("has space").ok());
  EXPECT_FALSE(ValidateTopicName(std::string(250, 'a')).ok());
  EXPECT_TRUE(ValidateTopicName(std::string(249, 'a')).ok());
}

TEST(Validate, RejectsCountsOutOfRangeAndDuplicates) {
  EXPECT_TRUE(Validate({}).ok());
  EXPECT_EQ(Validate({.brokers = 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Validate({.brokers = 17}).code(), StatusCode::kInvalidArgument);
  BrokerOptions rf{.brokers = 2, .topics = {{"t", 1, 3}}};
  Status s = Validate(rf);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("replication factor 3"), std::string::npos) << s.message();
  EXPECT_FALSE(Validate({.brokers = 1, .topics = {{"t", 0, 1}}}).ok());
  EXPECT_FALSE(Validate({.brokers = 1, .topics = {{"t", 1, 1}, {"t", 2, 1}}}).ok());
}

TEST(EmbeddedBrokerStart, RefusesBadOptionsWithoutStarting) {
  auto started = EmbeddedBroker::Start({.brokers = 1, .topics = {{"ok", 1, 1}, {"no way", 1, 1}}});
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(started.status().message().find("no way"), std::string::npos);
}

TEST(ApiKeyName, NamesKnownKeysAndNumbersOthers) {
  EXPECT_EQ(ApiKeyName(ApiKey::kProduce), "Produce");
  EXPECT_EQ(ApiKeyName(ApiKey::kEndTxn), "EndTxn");
  EXPECT_EQ(ApiKeyName(static_cast<ApiKey>(57)), "ApiKey(57)");
}

}  // namespace
}  // namespace snowcar::broker
