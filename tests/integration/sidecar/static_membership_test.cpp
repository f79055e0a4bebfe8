// SPDX-License-Identifier: Apache-2.0
// Static group membership (kafka.group.instance.id, KIP-345) from the outside: the real
// binary, both directions and a source group, against the emulator and the embedded broker.
// What is checked is what reaches librdkafka: the group.instance.id each group consumer's
// handle holds (read back from librdkafka and logged in `kafka.consumer.created`). What a
// broker does with it is not checked here: librdkafka 2.0.2's mock cluster reads the id and
// ignores it (docs/testbed.md), so a restart test on it would prove nothing about Kafka.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "snowcar/api/client.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/child_process.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

constexpr char kSourceGroup[] = "static-src";

class StaticMembershipTest : public testsupport::EmbeddedBrokerTest {
 protected:
  broker::BrokerOptions Options() override {
    // The source group's coordination and changelog topics, made up front: the embedded
    // broker cannot create topics through the Admin API.
    return {.topics = {{"snow.commands", 2},
                       {"snow.incident", 1},
                       {std::string(kSourceGroup) + ".tables", 1},
                       {std::string(kSourceGroup) + ".state", 1}}};
  }

  void SetUp() override {
    testsupport::EmbeddedBrokerTest::SetUp();
    ASSERT_TRUE(emu_.store().CreateTable("incident").ok());
    ASSERT_TRUE(emulator::Populate(emu_.store(), "incident", {.rows = 5}).ok());
    ASSERT_TRUE(emu_.Start().ok());
  }

  // `snowcar run` on the shipped example with a source group, JSON logs on stderr.
  std::unique_ptr<testsupport::ChildProcess> Start(
      const std::vector<std::pair<std::string, std::string>>& env,
      const std::vector<std::string>& extra_sets = {}) {
    testsupport::ChildOptions options;
    options.args = {"run", "--config",
                    std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/source-and-sink.properties"};
    std::vector<std::string> sets = {"snow.url=" + emu_.base_url(),
                                     "kafka.bootstrap.servers=" + bootstrap(),
                                     "kafka.session.timeout.ms=6000",
                                     "kafka.group.id=static-sink",
                                     std::string("source.group.id=") + kSourceGroup,
                                     "state.dir=" + dir_.File("state"),
                                     "socket.path=" + socket(),
                                     "log.format=json"};
    sets.insert(sets.end(), extra_sets.begin(), extra_sets.end());
    for (const auto& s : sets) {
      options.args.push_back("--set");
      options.args.push_back(s);
    }
    options.env = env;
    options.capture_stderr = true;
    auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
    EXPECT_TRUE(child.ok()) << child.status().message();
    return child.ok() ? std::move(child).value() : nullptr;
  }

  std::string socket() const { return dir_.File("snowcar.sock"); }

  emulator::EmulatorServer emu_;
  testsupport::TempDir dir_{"snowcar-static"};
};

// client_id -> group_instance_id of every `kafka.consumer.created` line in `log`.
std::map<std::string, std::string> InstanceIds(const std::string& log) {
  std::map<std::string, std::string> out;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    boost::system::error_code ec;
    const auto v = boost::json::parse(line, ec);
    if (ec || !v.is_object()) continue;
    const auto& o = v.as_object();
    const auto* event = o.if_contains("event");
    if (event == nullptr || *event != "kafka.consumer.created") continue;
    const auto* client = o.if_contains("client_id");
    const auto* id = o.if_contains("group_instance_id");
    if (client == nullptr || !client->is_string()) continue;
    out[std::string(client->as_string())] =
        id != nullptr && id->is_string() ? std::string(id->as_string()) : "<absent>";
  }
  return out;
}

// Both group consumers (the sink's and the source group's) created.
bool BothConsumersCreated(const testsupport::ChildProcess& child) {
  const auto ids = InstanceIds(child.Stderr());
  return ids.contains("snowcar-sink") && ids.contains("snowcar-source-group");
}

void StopCleanly(testsupport::ChildProcess& child) {
  ASSERT_TRUE(child.Signal(SIGTERM).ok());
  auto exit = child.Wait(30s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << child.Stderr();
}

// Waits until both group consumers exist, checks the group.instance.id each logged ("" when
// static membership is off), and stops the sidecar.
void ExpectInstanceIds(testsupport::ChildProcess& child, const std::string& want) {
  ASSERT_TRUE(testsupport::WaitFor([&] { return BothConsumersCreated(child); }, 30s))
      << child.Stderr();
  const auto ids = InstanceIds(child.Stderr());
  EXPECT_EQ(ids.at("snowcar-sink"), want);
  EXPECT_EQ(ids.at("snowcar-source-group"), want);
  StopCleanly(child);
}

TEST_F(StaticMembershipTest, PodNameIsTheInstanceIdOfBothGroupsAndTheSidecarWorks) {
  auto child = Start({{"POD_NAME", "snowcar-app-3"}});
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return BothConsumersCreated(*child); }, 30s))
      << child->Stderr();
  const auto ids = InstanceIds(child->Stderr());
  EXPECT_EQ(ids.at("snowcar-sink"), "snowcar-app-3");
  EXPECT_EQ(ids.at("snowcar-source-group"), "snowcar-app-3");
  // The restore reader joins no group, and a producer has no group at all.
  EXPECT_FALSE(ids.contains("snowcar-source-restore") &&
               ids.at("snowcar-source-restore") == "snowcar-app-3");

  // Both directions run as static members: the table is owned and emitted, a command applied.
  api::Client client;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto r = client.Get(socket(), "/v1/source/tables/incident");
        return r.ok() && r->status == 200 &&
               r->body.find("\"rows_emitted\":5") != std::string::npos;
      },
      60s));
  auto producer = testsupport::TestProducer::Create(bootstrap());
  ASSERT_TRUE(producer.ok());
  testsupport::OutMessage command;
  command.value = R"({"short_description":"static member","correlation_id":"static-1"})";
  ASSERT_TRUE((*producer)->ProduceAll("snow.commands", {command}, 30s).ok());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto rows = emu_.store().Snapshot("incident");
        return rows.ok() && rows->size() == 6;
      },
      60s));
  StopCleanly(*child);
}

TEST_F(StaticMembershipTest, OffWithoutPodNameAndWhenTurnedOff) {
  {
    auto child = Start({});
    ASSERT_NE(child, nullptr);
    ASSERT_NO_FATAL_FAILURE(ExpectInstanceIds(*child, ""));
  }
  {
    auto child = Start({{"POD_NAME", "snowcar-app-0"}}, {"kafka.group.instance.id=off"});
    ASSERT_NE(child, nullptr);
    ASSERT_NO_FATAL_FAILURE(ExpectInstanceIds(*child, ""));
  }
}

TEST_F(StaticMembershipTest, AnExplicitIdWinsAndABadPodNameStopsTheStartNamingIt) {
  {
    auto child = Start({{"POD_NAME", "snowcar-app-0"}}, {"kafka.group.instance.id=orders-1"});
    ASSERT_NE(child, nullptr);
    ASSERT_NO_FATAL_FAILURE(ExpectInstanceIds(*child, "orders-1"));
  }
  {
    auto child = Start({{"POD_NAME", "team/app 0"}});
    ASSERT_NE(child, nullptr);
    auto exit = child->Wait(30s);
    ASSERT_TRUE(exit.ok());
    // A configuration error, refused before anything starts (exit 2), as `config check` does.
    EXPECT_TRUE(exit->exited && exit->code == 2) << exit->ToString();
    ASSERT_TRUE(child->WaitStreamsDrained(10s));
    EXPECT_NE(child->Stderr().find("POD_NAME"), std::string::npos) << child->Stderr();
    EXPECT_EQ(child->Stderr().find("sidecar.started"), std::string::npos) << child->Stderr();
  }
}

// `snowcar config check` resolves the stable name exactly as `run` does: a POD_NAME Kafka
// would refuse as a group instance id fails the check (exit 2, naming it) when a group
// consumer would use it, and does not matter when none would or an explicit id wins.
TEST(StaticMembershipCheckTest, ConfigCheckRefusesThePodNameRunWouldRefuse) {
  const auto check = [](const std::string& pod_name, const std::vector<std::string>& sets) {
    testsupport::ChildOptions options;
    options.args = {"config", "check",
                    std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/source-and-sink.properties"};
    for (const auto& s : sets) {
      options.args.push_back("--set");
      options.args.push_back(s);
    }
    options.env = {{"POD_NAME", pod_name}};
    auto r = testsupport::RunToCompletion(SNOWCAR_BINARY, options, 30s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : testsupport::RunResult{};
  };
  const auto bad = check("team/app 0", {});
  EXPECT_TRUE(bad.status.exited && bad.status.code == 2) << bad.status.ToString() << bad.err;
  EXPECT_NE(bad.err.find("POD_NAME"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("kafka.group.instance.id"), std::string::npos) << bad.err;

  const auto good = check("snowcar-app-0", {});
  EXPECT_TRUE(good.status.exited && good.status.code == 0) << good.status.ToString() << good.err;
  // No group consumer (source without a group, sink off): no instance id is derived.
  const auto no_group = check("team/app 0", {"sink.enabled=false"});
  EXPECT_TRUE(no_group.status.exited && no_group.status.code == 0)
      << no_group.status.ToString() << no_group.err;
  const auto explicit_id = check("team/app 0", {"kafka.group.instance.id=orders-1"});
  EXPECT_TRUE(explicit_id.status.exited && explicit_id.status.code == 0)
      << explicit_id.status.ToString() << explicit_id.err;
}

}  // namespace
}  // namespace snowcar
