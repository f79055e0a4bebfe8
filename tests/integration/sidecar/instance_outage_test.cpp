// SPDX-License-Identifier: Apache-2.0
// The real `snowcar run` against a ServiceNow instance that cannot be reached: snow.url points
// at a closed loopback port. /v1/health turns not ok (the `servicenow` component, the affected
// direction and the overall status) within one retry cycle and says why; /v1/ready names the
// instance instead of "starting"; once an emulator listens on that port, everything turns ok
// by itself. Once for the source (it cannot start), once for the sink (its lane retries).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <iostream>

#include "sidecar_test_util.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/refusing_port.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using sidecartest::HealthComponent;
using sidecartest::SocketGet;

std::string OverallStatus(const std::string& socket) {
  auto [status, body] = SocketGet(socket, "/v1/health");
  if (status != 200) return "";
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object() || !v.as_object().contains("status")) return "";
  return std::string(v.as_object().at("status").as_string());
}

bool ComponentIs(const std::string& socket, const std::string& name, bool ok) {
  auto c = HealthComponent(socket, name);
  return c.is_object() && c.as_object().at("ok").as_bool() == ok;
}

std::string Detail(const std::string& socket, const std::string& name) {
  auto c = HealthComponent(socket, name);
  return c.is_object() ? std::string(c.as_object().at("detail").as_string()) : "";
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class InstanceOutageTest : public testsupport::EmbeddedBrokerTest {
 protected:
  broker::BrokerOptions Options() override {
    return {.brokers = 1, .topics = {{"snow.incident", 1}, {"snow.commands", 1}}};
  }

  void SetUp() override {
    EmbeddedBrokerTest::SetUp();
    port_ = testsupport::UnusedPort();
    ASSERT_NE(port_, 0);
  }

  std::unique_ptr<testsupport::ChildProcess> Run(std::vector<std::string> sets) {
    std::vector<std::string> all = {
        "snow.url=http://127.0.0.1:" + std::to_string(port_),
        "kafka.bootstrap.servers=" + bootstrap(),
        "kafka.session.timeout.ms=6000",
        "state.dir=" + dir_.File("state"),
        "socket.path=" + socket_,
        "shutdown.timeout.ms=5000",
        // Defaults otherwise (5 attempts per call); a lower backoff cap only shortens how
        // long the table and the lane wait between calls, so recovery is quick to observe.
        "snow.retry.max.backoff.ms=2000",
    };
    for (auto& s : sets) all.push_back(std::move(s));
    return sidecartest::SpawnRun(
        std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/source-and-sink.properties", all);
  }

  // The emulator, on the very port snow.url names.
  // Starts `emu` on the port the sidecar was given and waits until health says ok again;
  // `seconds` is how long that took.
  void BringInstanceUp(emulator::EmulatorServer& emu, const testsupport::ChildProcess& child,
                       double& seconds) {
    ASSERT_TRUE(emu.Start().ok()) << "port " << port_ << " was taken meanwhile";
    const auto up = std::chrono::steady_clock::now();
    ASSERT_TRUE(testsupport::WaitFor([&] { return OverallStatus(socket_) == "ok"; }, 60s))
        << SocketGet(socket_, "/v1/health").second << "\n"
        << child.Stderr();
    seconds = SecondsSince(up);
  }

  std::unique_ptr<emulator::EmulatorServer> NewEmulator() {
    emulator::EmulatorOptions options;
    options.port = port_;
    auto emu = std::make_unique<emulator::EmulatorServer>(options);
    EXPECT_TRUE(emu->store().CreateTable("incident").ok());
    return emu;
  }

  testsupport::TempDir dir_{"snowcar-outage"};
  std::string socket_ = dir_.File("s.sock");
  uint16_t port_ = 0;
};

TEST_F(InstanceOutageTest, SourceHealthFollowsTheInstanceAndReadinessSaysWhy) {
  const auto started = std::chrono::steady_clock::now();
  auto child = Run({"sink.enabled=false"});
  ASSERT_NE(child, nullptr);

  // Down from the start: not ok within one retry cycle (5 attempts, waits below 2 s each).
  ASSERT_TRUE(testsupport::WaitFor([&] { return ComponentIs(socket_, "servicenow", false); }, 30s))
      << SocketGet(socket_, "/v1/health").second << "\n"
      << child->Stderr();
  const double to_not_ok = SecondsSince(started);
  EXPECT_EQ(OverallStatus(socket_), "degraded");
  EXPECT_NE(Detail(socket_, "servicenow").find("Couldn't connect"), std::string::npos)
      << Detail(socket_, "servicenow");
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return ComponentIs(socket_, "source.incident", false); }, 10s))
      << SocketGet(socket_, "/v1/health").second;
  EXPECT_NE(Detail(socket_, "source.incident").find("backing_off"), std::string::npos);
  auto [ready_status, ready] = SocketGet(socket_, "/v1/ready");
  EXPECT_EQ(ready_status, 503) << ready;
  EXPECT_NE(ready.find("waiting for the ServiceNow instance"), std::string::npos) << ready;
  EXPECT_NE(ready.find("unreachable"), std::string::npos) << ready;
  EXPECT_NE(SocketGet(socket_, "/metrics").second.find("snowcar_servicenow_reachable 0\n"),
            std::string::npos);
  EXPECT_EQ(SocketGet(socket_, "/v1/health").first, 200) << "liveness stays 200";

  // The instance comes up on that port: ok again, ready, rows flow, without a restart.
  auto emu = NewEmulator();
  ASSERT_TRUE(emulator::Populate(emu->store(), "incident", {.rows = 3}).ok());
  double to_ok = 0;
  ASSERT_NO_FATAL_FAILURE(BringInstanceUp(*emu, *child, to_ok));
  EXPECT_TRUE(
      testsupport::WaitFor([&] { return SocketGet(socket_, "/v1/ready").first == 200; }, 30s))
      << SocketGet(socket_, "/v1/ready").second;
  EXPECT_EQ(Detail(socket_, "servicenow"), "answering");
  EXPECT_NE(SocketGet(socket_, "/metrics").second.find("snowcar_servicenow_reachable 1\n"),
            std::string::npos);
  std::cout << "[measured] source: start to not ok " << to_not_ok << " s; instance up to ok "
            << to_ok << " s\n";
  sidecartest::StopCleanly(*child);
}

// readiness.requires.instance=false: an instance down at start does not keep the sidecar (and
// a pod whose readiness includes it) not ready; health still says so, and the source starts
// by itself when the instance answers.
TEST_F(InstanceOutageTest, ReadinessNeedNotWaitForTheInstance) {
  auto child = Run({"sink.enabled=false", "readiness.requires.instance=false"});
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return SocketGet(socket_, "/v1/ready").first == 200; }, 30s))
      << SocketGet(socket_, "/v1/ready").second << "\n"
      << child->Stderr();
  EXPECT_TRUE(ComponentIs(socket_, "servicenow", false)) << "ready only once a call gave up";
  EXPECT_EQ(OverallStatus(socket_), "degraded");

  auto emu = NewEmulator();
  ASSERT_TRUE(emulator::Populate(emu->store(), "incident", {.rows = 2}).ok());
  ASSERT_TRUE(emu->Start().ok()) << "port " << port_ << " was taken meanwhile";
  ASSERT_TRUE(testsupport::WaitFor([&] { return OverallStatus(socket_) == "ok"; }, 60s))
      << SocketGet(socket_, "/v1/health").second << "\n"
      << child->Stderr();
  EXPECT_EQ(SocketGet(socket_, "/v1/ready").first, 200);
  sidecartest::StopCleanly(*child);
}

TEST_F(InstanceOutageTest, SinkLanesRetryingAgainstAnUnreachableInstanceTurnHealthNotOk) {
  auto child = Run({"source.enabled=false", "kafka.group.id=" + testsupport::UniqueName("g")});
  ASSERT_NE(child, nullptr);
  // The sink needs no instance to start: ready once subscribed, and ok until a call fails.
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return SocketGet(socket_, "/v1/ready").first == 200; }, 60s))
      << SocketGet(socket_, "/v1/ready").second << "\n"
      << child->Stderr();
  EXPECT_TRUE(ComponentIs(socket_, "servicenow", true));
  EXPECT_EQ(Detail(socket_, "servicenow"), "not contacted yet");

  auto emu = NewEmulator();  // not started yet: seeded now, serving later
  auto row = emu->store().Insert("incident", {{"short_description", "before"}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  const std::string sys_id(row->row->sys_id());
  const size_t field = row->schema->IndexOf("short_description").value_or(0);
  testsupport::OutMessage command;
  command.key = sys_id;
  command.value = R"({"short_description":"after"})";
  command.partition = 0;
  ASSERT_TRUE(testsupport::ProduceMessages(bootstrap(), "snow.commands", {command}, 10s).ok());

  const auto sent = std::chrono::steady_clock::now();
  ASSERT_TRUE(testsupport::WaitFor([&] { return ComponentIs(socket_, "servicenow", false); }, 60s))
      << SocketGet(socket_, "/v1/health").second << "\n"
      << child->Stderr();
  const double to_not_ok = SecondsSince(sent);
  EXPECT_EQ(OverallStatus(socket_), "degraded");
  EXPECT_NE(Detail(socket_, "servicenow").find("Couldn't connect"), std::string::npos);
  EXPECT_EQ(SocketGet(socket_, "/v1/ready").first, 200) << "readiness, once reached, stays";

  double to_ok = 0;
  ASSERT_NO_FATAL_FAILURE(BringInstanceUp(*emu, *child, to_ok));
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto r = emu->store().Get("incident", sys_id);
        return r.ok() && (*r)->Get(field) == "after";
      },
      30s));
  std::cout << "[measured] sink: command to not ok " << to_not_ok << " s; instance up to ok "
            << to_ok << " s\n";
  sidecartest::StopCleanly(*child);
}

}  // namespace
}  // namespace snowcar
