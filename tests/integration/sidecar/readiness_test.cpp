// SPDX-License-Identifier: Apache-2.0
// /v1/ready and /v1/health of a sidecar running directions: not ready while Kafka does not
// answer (saying so), ready with every component reported once the broker and the emulator
// are there, and the Kafka and state families on /metrics. `sidecar.ready` is logged when
// /v1/ready turns 200 and not before; `sidecar.not_ready` when it stops being 200.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <iostream>

#include "sidecar_test_util.h"
#include "snowcar/testbed/broker/embedded_broker.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/refusing_port.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using sidecartest::HealthComponent;
using sidecartest::SocketGet;

std::string ExampleConfig() {
  return std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/source-and-sink.properties";
}

bool ComponentOk(const std::string& socket, const std::string& name) {
  auto c = HealthComponent(socket, name);
  return c.is_object() && c.as_object().at("ok").as_bool();
}

TEST(ReadinessTest, NotReadyWhileKafkaDoesNotAnswer) {
  emulator::EmulatorServer emu;
  ASSERT_TRUE(emu.Start().ok());
  testsupport::TempDir dir("snowcar-ready");
  const std::string socket = dir.File("s.sock");
  const uint16_t port = testsupport::UnusedPort();
  ASSERT_NE(port, 0);
  const std::string bootstrap = "127.0.0.1:" + std::to_string(port);
  auto child = sidecartest::SpawnRun(
      ExampleConfig(),
      {"source.enabled=false", "snow.url=" + emu.base_url(), "kafka.bootstrap.servers=" + bootstrap,
       "state.dir=" + dir.File("state"), "socket.path=" + socket, "shutdown.timeout.ms=2000"});
  ASSERT_NE(child, nullptr);

  // The socket answers, the state is open, the first probe has failed: still 503, naming Kafka.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto kafka = HealthComponent(socket, "kafka");
        return kafka.is_object() &&
               kafka.as_object().at("detail").as_string().find("within") != std::string::npos;
      },
      20s))
      << child->Stderr();
  auto [status, body] = SocketGet(socket, "/v1/ready");
  EXPECT_EQ(status, 503) << body;
  EXPECT_NE(body.find("Kafka"), std::string::npos) << body;
  // Start-up has returned (logged), but the sidecar is not ready, and its log must not say so.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find(" sidecar.started ") != std::string::npos; }, 20s))
      << child->Stderr();
  EXPECT_EQ(SocketGet(socket, "/v1/ready").first, 503);
  EXPECT_EQ(child->Stderr().find("sidecar.ready"), std::string::npos) << child->Stderr();
  EXPECT_NE(body.find(bootstrap), std::string::npos) << body;
  EXPECT_TRUE(ComponentOk(socket, "state"));
  EXPECT_FALSE(ComponentOk(socket, "kafka"));
  auto [health_status, health] = SocketGet(socket, "/v1/health");
  EXPECT_EQ(health_status, 200) << "liveness stays 200: " << health;
  EXPECT_NE(health.find("\"degraded\""), std::string::npos) << health;
  auto [metrics_status, metrics] = SocketGet(socket, "/metrics");
  EXPECT_EQ(metrics_status, 200);
  EXPECT_NE(metrics.find("snowcar_kafka_metadata_reachable 0\n"), std::string::npos) << metrics;

  sidecartest::StopCleanly(*child);
}

class ReadyWithBrokerTest : public testsupport::EmbeddedBrokerTest {};

TEST_F(ReadyWithBrokerTest, ReadyOnceKafkaAndEveryDirectionAreUp) {
  emulator::EmulatorServer emu;
  ASSERT_TRUE(emu.store().CreateTable("incident").ok());
  ASSERT_TRUE(emulator::Populate(emu.store(), "incident", {.rows = 5}).ok());
  ASSERT_TRUE(emu.Start().ok());
  testsupport::TempDir dir("snowcar-ready");
  const std::string socket = dir.File("s.sock");
  auto child = sidecartest::SpawnRun(
      ExampleConfig(), {"snow.url=" + emu.base_url(), "kafka.bootstrap.servers=" + bootstrap(),
                        "kafka.session.timeout.ms=6000", "state.dir=" + dir.File("state"),
                        "socket.path=" + socket, "shutdown.timeout.ms=5000"});
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return SocketGet(socket, "/v1/ready").first == 200; }, 60s))
      << SocketGet(socket, "/v1/ready").second << "\n"
      << child->Stderr();
  for (const char* component : {"state", "socket", "kafka", "sink", "source.incident"}) {
    EXPECT_TRUE(testsupport::WaitFor([&] { return ComponentOk(socket, component); }, 30s))
        << component << ": " << SocketGet(socket, "/v1/health").second;
  }
  auto [status, metrics] = SocketGet(socket, "/metrics");
  EXPECT_EQ(status, 200);
  for (const char* family :
       {"snowcar_kafka_metadata_reachable 1\n", "snowcar_state_estimated_keys{column_family=",
        "snowcar_source_rows_emitted_total{table=\"incident\"}", "snowcar_sink_records_total",
        "snowcar_build_info{version="}) {
    EXPECT_NE(metrics.find(family), std::string::npos) << family << "\n" << metrics;
  }
  sidecartest::StopCleanly(*child);
}

// The real sidecar with the shipped probe timing (a metadata request every 15 s while Kafka
// answers): every broker of the embedded cluster taken off the network turns the `kafka`
// health component not ok within 2 s (librdkafka's all-brokers-down error wakes the probe),
// and bringing them back turns it ok within 1 s. Twice, so neither depends on the 15 s tick.
TEST_F(ReadyWithBrokerTest, KafkaHealthFollowsEveryBrokerDownAndBackWithinSeconds) {
  testsupport::TempDir dir("snowcar-kafka-outage");
  const std::string socket = dir.File("s.sock");
  auto child = sidecartest::SpawnRun(
      ExampleConfig(),
      {"source.enabled=false", "snow.url=http://127.0.0.1:9",
       "kafka.bootstrap.servers=" + bootstrap(), "kafka.session.timeout.ms=6000",
       "state.dir=" + dir.File("state"), "socket.path=" + socket, "shutdown.timeout.ms=5000"});
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return ComponentOk(socket, "kafka"); }, 60s))
      << SocketGet(socket, "/v1/health").second << "\n"
      << child->Stderr();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  for (int round = 0; round < 2; ++round) {
    const auto down = std::chrono::steady_clock::now();
    ASSERT_TRUE(broker().SetBrokerDown(broker::kAllBrokers).ok());
    ASSERT_TRUE(testsupport::WaitFor([&] { return !ComponentOk(socket, "kafka"); }, 30s))
        << SocketGet(socket, "/v1/health").second;
    const double to_degraded = seconds_since(down);
    const auto up = std::chrono::steady_clock::now();
    ASSERT_TRUE(broker().SetBrokerUp(broker::kAllBrokers).ok());
    ASSERT_TRUE(testsupport::WaitFor([&] { return ComponentOk(socket, "kafka"); }, 30s))
        << SocketGet(socket, "/v1/health").second;
    const double to_ok = seconds_since(up);
    std::cout << "[measured] round " << round << ": all brokers down to kafka not ok "
              << to_degraded << " s; brokers up to ok " << to_ok << " s\n";
    EXPECT_LT(to_degraded, 2.0);
    EXPECT_LT(to_ok, 1.0);
  }
  sidecartest::StopCleanly(*child);
}

// Where `event` first appears in `log`, npos when absent.
size_t EventAt(const std::string& log, const std::string& event) {
  return log.find("\"event\":\"" + event + "\"");
}

// The source waits for an instance that is not there yet: /v1/ready says so and nothing logs
// readiness; once an emulator listens on snow.url's port, `sidecar.ready` is logged, and
// /v1/ready answers 200 whenever the log says ready. SIGTERM logs `sidecar.not_ready`.
TEST_F(ReadyWithBrokerTest, ReadinessIsLoggedWhenItTurnsTrueAndWhenItEnds) {
  const uint16_t port = testsupport::UnusedPort();
  ASSERT_NE(port, 0);
  testsupport::TempDir dir("snowcar-ready");
  const std::string socket = dir.File("s.sock");
  auto child = sidecartest::SpawnRun(
      ExampleConfig(), {"sink.enabled=false", "snow.url=http://127.0.0.1:" + std::to_string(port),
                        "kafka.bootstrap.servers=" + bootstrap(), "state.dir=" + dir.File("state"),
                        "socket.path=" + socket, "shutdown.timeout.ms=5000",
                        "snow.retry.max.backoff.ms=1000", "log.format=json"});
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return SocketGet(socket, "/v1/ready").second.find("waiting for the ServiceNow instance") !=
               std::string::npos;
      },
      30s))
      << SocketGet(socket, "/v1/ready").second << "\n"
      << child->Stderr();
  ASSERT_NE(EventAt(child->Stderr(), "sidecar.started"), std::string::npos) << child->Stderr();
  EXPECT_EQ(EventAt(child->Stderr(), "sidecar.ready"), std::string::npos) << child->Stderr();

  emulator::EmulatorOptions options;
  options.port = port;
  emulator::EmulatorServer emu(options);
  ASSERT_TRUE(emu.store().CreateTable("incident").ok());
  ASSERT_TRUE(emu.Start().ok()) << "port " << port << " was taken meanwhile";
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return EventAt(child->Stderr(), "sidecar.ready") != std::string::npos; }, 60s))
      << SocketGet(socket, "/v1/ready").second << "\n"
      << child->Stderr();
  auto [status, body] = SocketGet(socket, "/v1/ready");
  EXPECT_EQ(status, 200) << "the log said ready: " << body;

  sidecartest::StopCleanly(*child);
  const std::string log = child->Stderr();
  const size_t ready_at = EventAt(log, "sidecar.ready");
  const size_t not_ready_at = EventAt(log, "sidecar.not_ready");
  ASSERT_NE(not_ready_at, std::string::npos) << log;
  EXPECT_LT(EventAt(log, "sidecar.started"), ready_at) << log;
  EXPECT_LT(ready_at, not_ready_at) << log;
  EXPECT_NE(log.find("shutting down", not_ready_at), std::string::npos) << log;
  EXPECT_EQ(EventAt(log.substr(ready_at + 1), "sidecar.ready"), std::string::npos)
      << "logged once: " << log;
}

}  // namespace
}  // namespace snowcar
