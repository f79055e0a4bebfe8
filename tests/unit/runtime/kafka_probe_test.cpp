// SPDX-License-Identifier: Apache-2.0
// The Kafka reachability probe behind /v1/ready and the "kafka" health component, against
// the embedded broker: reachable, then taken down (health turns, readiness latch stays), then
// back; and a bootstrap nobody listens on.
#include "snowcar/runtime/kafka_probe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "snowcar/api/readiness.h"
#include "snowcar/testbed/broker/embedded_broker.h"
#include "support/broker_fixture.h"
#include "support/refusing_port.h"
#include "support/wait.h"

namespace snowcar::runtime {
namespace {

using namespace std::chrono_literals;

KafkaProbeOptions FastOptions(const std::string& bootstrap) {
  KafkaProbeOptions o;
  o.properties = {{"bootstrap.servers", bootstrap}};
  o.timeout = 500ms;
  o.retry = 50ms;
  o.interval = 50ms;
  return o;
}

bool KafkaHealthy(const api::HealthRegistry& health) {
  const auto snapshot = health.Snapshot();
  const auto it = snapshot.find("kafka");
  return it != snapshot.end() && it->second.ok;
}

class KafkaProbeTest : public testsupport::EmbeddedBrokerTest {};

TEST_F(KafkaProbeTest, FollowsTheBrokerAndLatchesTheFirstAnswer) {
  api::HealthRegistry health;
  auto probe = KafkaProbe::Create(FastOptions(bootstrap()), &health);
  ASSERT_TRUE(probe.ok()) << probe.status().ToString();
  EXPECT_FALSE((*probe)->reached_once());
  EXPECT_FALSE(KafkaHealthy(health)) << "must not claim health before any answer";
  (*probe)->Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return (*probe)->reached_once(); }, 10s));
  ASSERT_TRUE(testsupport::WaitFor([&] { return KafkaHealthy(health); }, 10s));

  ASSERT_TRUE(broker().SetBrokerDown(broker::kAllBrokers).ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return !(*probe)->reachable(); }, 10s));
  EXPECT_FALSE(KafkaHealthy(health));
  EXPECT_NE(health.Snapshot().at("kafka").detail.find(bootstrap()), std::string::npos)
      << health.Snapshot().at("kafka").detail;
  EXPECT_TRUE((*probe)->reached_once()) << "readiness is latched once reached";

  ASSERT_TRUE(broker().SetBrokerUp(broker::kAllBrokers).ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return KafkaHealthy(health); }, 15s));
  (*probe)->Stop();
}

// With the shipped timing (a probe every 15 s while Kafka answers): every broker going away
// shows within 2 s, from librdkafka's "all brokers down" rather than the next probe, and the
// brokers coming back within 1 s. Neither waits on the 15 s interval.
TEST_F(KafkaProbeTest, SeesAllBrokersDownWithinTwoSecondsAndTheirReturnWithinOne) {
  api::HealthRegistry health;
  KafkaProbeOptions options;
  options.properties = {{"bootstrap.servers", bootstrap()}};
  ASSERT_EQ(options.interval, 15000ms) << "the shipped interval, which this must not wait on";
  auto probe = KafkaProbe::Create(options, &health);
  ASSERT_TRUE(probe.ok()) << probe.status().ToString();
  (*probe)->Start();
  // The first probe answered: the next periodic one is 15 s away.
  ASSERT_TRUE(testsupport::WaitFor([&] { return KafkaHealthy(health); }, 10s));

  for (int round = 0; round < 2; ++round) {
    const auto down = std::chrono::steady_clock::now();
    ASSERT_TRUE(broker().SetBrokerDown(broker::kAllBrokers).ok());
    ASSERT_TRUE(testsupport::WaitFor([&] { return !KafkaHealthy(health); }, 10s));
    const double to_degraded =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - down).count();
    const auto up = std::chrono::steady_clock::now();
    ASSERT_TRUE(broker().SetBrokerUp(broker::kAllBrokers).ok());
    ASSERT_TRUE(testsupport::WaitFor([&] { return KafkaHealthy(health); }, 10s));
    const double to_ok =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - up).count();
    std::cout << "[measured] round " << round << ": all brokers down to degraded " << to_degraded
              << " s; brokers up to ok " << to_ok << " s\n";
    EXPECT_LT(to_degraded, 2.0);
    EXPECT_LT(to_ok, 1.0);
  }
  (*probe)->Stop();
}

TEST(KafkaProbeNoBrokerTest, NeverReachedAndSaysWhere) {
  api::HealthRegistry health;
  const uint16_t port = testsupport::UnusedPort();
  ASSERT_NE(port, 0);
  const std::string bootstrap = "127.0.0.1:" + std::to_string(port);
  auto probe = KafkaProbe::Create(FastOptions(bootstrap), &health);
  ASSERT_TRUE(probe.ok()) << probe.status().ToString();
  (*probe)->Start();
  // Two full probe rounds have answered "no" once the detail names the timeout.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return health.Snapshot().at("kafka").detail.find("within") != std::string::npos; },
      10s));
  EXPECT_FALSE((*probe)->reached_once());
  EXPECT_FALSE(KafkaHealthy(health));
  EXPECT_NE(health.Snapshot().at("kafka").detail.find(bootstrap), std::string::npos);
  (*probe)->Stop();
}

TEST(KafkaProbeNoBrokerTest, RefusesAConfigWithoutBootstrap) {
  auto probe = KafkaProbe::Create(KafkaProbeOptions{}, nullptr);
  ASSERT_FALSE(probe.ok());
  EXPECT_NE(probe.status().message().find("bootstrap"), std::string::npos)
      << probe.status().message();
}

}  // namespace
}  // namespace snowcar::runtime
