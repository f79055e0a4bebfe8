// SPDX-License-Identifier: Apache-2.0
// Two sink replicas in one consumer group: replica A applies a create and is killed (kill -9)
// before it commits the offset; replica B, which shares the group, is given the partition and
// reads the command again. B has no correlation cache entry (that lives on A's disk), so the
// correlation_lookup policy asks the Table API, finds A's row and patches it: one row, one
// POST, never a duplicate create.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <map>

#include "snowcar/api/client.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/child_process.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

class SinkReplicasShareCorrelation
    : public testsupport::SharedBrokerTest<SinkReplicasShareCorrelation> {
 protected:
  std::unique_ptr<testsupport::ChildProcess> Replica(const std::string& name,
                                                     const std::string& base_url,
                                                     const std::string& topic,
                                                     const std::string& group) {
    const std::map<std::string, std::string> props = {
        {"snow.url", base_url},
        {"snow.auth.username", emulator::kDefaultUser},
        {"snow.auth.password", emulator::kDefaultPassword},
        {"kafka.bootstrap.servers", bootstrap()},
        {"kafka.group.id", group},
        {"kafka.session.timeout.ms", "6000"},
        // Nothing is committed while the replica runs: the kill -9 always comes "before the
        // commit", which is the case under test.
        {"kafka.auto.commit.interval.ms", "600000"},
        {"source.enabled", "false"},
        {"sink.enabled", "true"},
        {"snow.sink.topics", topic},
        {"snow.sink.table", "incident"},
        {"snow.sink.unknown.field.behavior", "passthrough"},
        {"snow.sink.create.ambiguous.behavior", "correlation_lookup"},
        {"snow.sink.correlation.field", "correlation_id"},
        {"state.dir", dir_.File(name + "/state")},
        {"socket.path", dir_.File(name + "/snowcar.sock")},
        {"threads", "2"},
    };
    const std::string path = dir_.File(name + ".properties");
    std::ofstream out(path);
    for (const auto& [k, v] : props) out << k << "=" << v << "\n";
    out.close();
    testsupport::ChildOptions options;
    options.args = {"run", "--config", path};
    options.capture_stderr = true;
    auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
    EXPECT_TRUE(child.ok()) << child.status().ToString();
    return child.ok() ? std::move(child).value() : nullptr;
  }

  testsupport::TempDir dir_{"snowcar-sink-replicas"};
};

size_t Count(const emulator::Journal& journal, const std::string& method) {
  size_t n = 0;
  for (const auto& e : journal.All()) {
    if (e.method == method && e.target.find("/api/now/table/incident") == 0) ++n;
  }
  return n;
}

TEST_F(SinkReplicasShareCorrelation, ACreateRedeliveredToAnotherReplicaIsNotDuplicated) {
  emulator::EmulatorServer emu;
  ASSERT_TRUE(emu.store().CreateTable("incident").ok());
  ASSERT_TRUE(emu.Start().ok());
  const std::string topic = testsupport::UniqueName("cmds");
  const std::string group = testsupport::UniqueName("sink-grp");
  ASSERT_TRUE(broker().CreateTopic(topic, 1).ok());
  auto producer = testsupport::TestProducer::Create(bootstrap());
  ASSERT_TRUE(producer.ok());
  testsupport::OutMessage command;
  command.value = R"({"short_description":"order 1042","correlation_id":"ORD-1042"})";
  ASSERT_TRUE((*producer)->ProduceAll(topic, {command}, 30s).ok());

  auto a = Replica("a", emu.base_url(), topic, group);
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto rows = emu.store().Snapshot("incident");
        return rows.ok() && rows->size() == 1;
      },
      60s))
      << "replica A never applied the create";
  // B joins the group while A still holds the partition (cooperative-sticky keeps it there).
  auto b = Replica("b", emu.base_url(), topic, group);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto r = api::Client().Get(dir_.File("b/snowcar.sock"), "/v1/ready");
        return r.ok();
      },
      30s));
  ASSERT_EQ(Count(emu.journal(), "POST"), 1u);
  const auto before_kill = emu.journal().All();
  const uint64_t kill_seq = before_kill.empty() ? 0 : before_kill.back().seq;
  ASSERT_TRUE(a->Signal(SIGKILL).ok());
  ASSERT_TRUE(a->Wait(10s).ok());

  // B gets the partition once the group drops A, reads the command again, finds A's row by
  // its correlation id and patches it.
  ASSERT_TRUE(testsupport::WaitFor([&] { return Count(emu.journal(), "PATCH") >= 1; }, 60s))
      << "replica B never settled the redelivered create; B stderr:\n"
      << b->Stderr();
  auto rows = emu.store().Snapshot("incident");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 1u) << "the create was duplicated";
  EXPECT_EQ(Count(emu.journal(), "POST"), 1u);
  bool looked_up = false;
  for (const auto& e : emu.journal().Since(kill_seq)) {
    if (e.method == "GET" && e.target.find("correlation_id%3DORD-1042") != std::string::npos) {
      looked_up = true;
    }
  }
  EXPECT_TRUE(looked_up) << "B did not ask the Table API for the correlation id";

  ASSERT_TRUE(b->Signal(SIGTERM).ok());
  auto exit = b->Wait(30s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString();
}

}  // namespace
}  // namespace snowcar
