// SPDX-License-Identifier: Apache-2.0
// Exactly-once at start-up on the embedded broker (librdkafka's mock cluster), whose
// transactions are not faithful: `requested` runs at least once and says so in health,
// `required` is refused naming the broker, `disabled` never asks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snowcar/api/readiness.h"
#include "snowcar/kafka/producer.h"
#include "source/exactly_once/eos_start.h"
#include "support/broker_fixture.h"
#include "support/temp_dir.h"

namespace snowcar::source::exactly_once {
namespace {

using ::testing::HasSubstr;

class ExactlyOnceStartTest : public testsupport::EmbeddedBrokerTest {
 protected:
  void SetUp() override {
    EmbeddedBrokerTest::SetUp();
    auto store = state::StateStore::Open({.dir = dir_.File("state")});
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(store).value();
    kafka::ProducerOptions options;
    options.properties = {{"bootstrap.servers", bootstrap()}};
    auto producer = kafka::KafkaProducer::Create(options);
    ASSERT_TRUE(producer.ok()) << producer.status().message();
    producer_ = std::move(producer).value();
    settings_.instance = "acme.service-now.com";
    settings_.tables.push_back(TableSettings{});
    settings_.tables.back().alias = "inc";
    settings_.tables.back().name = "incident";
    settings_.tables.back().topic = "sn.incident";
  }
  void TearDown() override {
    producer_.reset();
    store_.reset();
    EmbeddedBrokerTest::TearDown();
  }

  Result<Transactions> Start(ExactlyOnce mode) {
    settings_.exactly_once = mode;
    return StartTransactions(settings_, {{"bootstrap.servers", bootstrap()}}, *producer_, *store_,
                             &health_);
  }

  testsupport::TempDir dir_{"snowcar-eos-start"};
  std::unique_ptr<state::StateStore> store_;
  std::unique_ptr<kafka::KafkaProducer> producer_;
  SourceSettings settings_;
  api::HealthRegistry health_;
};

TEST_F(ExactlyOnceStartTest, RequiredIsRefusedOnTheEmbeddedBroker) {
  auto started = Start(ExactlyOnce::kRequired);
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(started.status().message(), HasSubstr("embedded broker"));
  EXPECT_THAT(started.status().message(), HasSubstr("exactly.once.source.support=required"));
}

TEST_F(ExactlyOnceStartTest, RequestedRunsAtLeastOnceAndSaysSoInHealth) {
  auto started = Start(ExactlyOnce::kRequested);
  ASSERT_TRUE(started.ok()) << started.status().message();
  EXPECT_TRUE(started->empty());
  const auto components = health_.Snapshot();
  ASSERT_TRUE(components.contains("source.exactly_once"));
  EXPECT_TRUE(components.at("source.exactly_once").ok);
  EXPECT_THAT(components.at("source.exactly_once").detail, HasSubstr("off (at-least-once)"));
}

TEST_F(ExactlyOnceStartTest, DisabledAsksNothing) {
  auto started = Start(ExactlyOnce::kDisabled);
  ASSERT_TRUE(started.ok());
  EXPECT_TRUE(started->empty());
  EXPECT_FALSE(health_.Snapshot().contains("source.exactly_once"));
}

}  // namespace
}  // namespace snowcar::source::exactly_once
