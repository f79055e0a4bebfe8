// SPDX-License-Identifier: Apache-2.0
// Source scale-out on Apache Kafka, with the source group's topics created by snowcar itself:
// the broker creates nothing on first use (auto.create.topics.enable=false), so nothing here
// works unless the sidecar's Admin API calls do.
//
// Kafka behaviour proven: CreateTopics makes `<id>.tables` and a compacted `<id>.state`
// (cleanup.policy=compact as the broker reports it); the group coordinator splits the tables
// between two replicas and, when one is killed with SIGKILL, gives its tables to the other
// after the session timeout; every row reaches its topic, none lost. A replica stopped with
// SIGTERM leaves the group cleanly (LeaveGroup after its last snapshot): the other takes its
// tables at once and, restoring that snapshot, emits no row twice (the bound for a clean
// handoff, docs/scale-out.md, is zero duplicates).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "real_kafka.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;

constexpr int kTables = 4;
constexpr size_t kRows = 5;

class SourceGroupRealKafkaTest : public RealKafkaTest {
 protected:
  void SetUp() override {
    RealKafkaTest::SetUp();
    if (HasFatalFailure()) return;
    group_ = testsupport::UniqueName("srcgroup");
    for (int i = 0; i < kTables; ++i) {
      const std::string table = "t" + std::to_string(i);
      ASSERT_TRUE(emu_.store().CreateTable(table).ok());
      ASSERT_TRUE(emulator::Populate(emu_.store(), table, {.rows = kRows}).ok());
      tables_.push_back(table);
      // The tables' own topics are the user's to create (docs/production.md).
      ASSERT_TRUE(testsupport::CreateTopic(kafka_.Admin(), Topic(table), 1).ok());
    }
  }

  std::string Topic(const std::string& table) const { return group_ + "." + table; }

  std::vector<std::string> Config(const std::string& name) const {
    auto lines = BaseConfig(name);
    std::string aliases;
    for (const auto& t : tables_) {
      if (!aliases.empty()) aliases += ",";
      aliases += t;
      lines.push_back(std::string("snow.table.").append(t).append(".name=").append(t));
      lines.push_back(std::string("snow.table.").append(t).append(".topic=").append(Topic(t)));
    }
    lines.insert(lines.end(), {"kafka.bootstrap.servers=" + kafka_.plaintext, "sink.enabled=false",
                               "source.enabled=true", "snow.tables=" + aliases,
                               "snow.source.poll.interval.ms=200", "source.group.id=" + group_,
                               "source.group.replica.id=" + name, "kafka.session.timeout.ms=6000"});
    return lines;
  }

  // Every row of every table has a record in its topic.
  bool EveryRowInItsTopic() {
    for (const auto& t : tables_) {
      auto rows = emu_.store().Snapshot(t);
      if (!rows.ok()) return false;
      const auto log = ReadLog(kafka_.plaintext, Topic(t));
      for (const auto& row : *rows) {
        if (!log.contains(std::string(row->sys_id()))) return false;
      }
    }
    return true;
  }

  // Records of `topic` beyond the first for any key: rows are inserted once and never updated,
  // so every extra record is a duplicate.
  size_t DuplicatesIn(const std::string& topic) {
    size_t dups = 0;
    for (const auto& [key, records] : ReadLog(kafka_.plaintext, topic)) dups += records.size() - 1;
    return dups;
  }

  // Inserts `n` rows in every table.
  void InsertRows(const std::string& what, int n) {
    for (const auto& t : tables_) {
      for (int i = 0; i < n; ++i) {
        ASSERT_TRUE(
            emu_.store().Insert(t, {{"short_description", what + " " + std::to_string(i)}}).ok());
      }
    }
  }

  // Starts replicas a and b and waits until every row reached its table's topic.
  void StartTwoReplicas(std::unique_ptr<testsupport::ChildProcess>& a,
                        std::unique_ptr<testsupport::ChildProcess>& b) {
    a = StartSidecar("a", Config("a"));
    b = StartSidecar("b", Config("b"));
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(testsupport::WaitFor([&] { return EveryRowInItsTopic(); }, 90s))
        << a->Stderr() << b->Stderr();
  }

  // Whether `log` (a replica's stderr) says it acquired a table.
  static bool OwnsATable(const std::string& log) {
    return log.find("\"source.group.table_acquired\"") != std::string::npos;
  }

  std::string group_;
  std::vector<std::string> tables_;
};

TEST_F(SourceGroupRealKafkaTest, ReplicasShareTablesOnTopicsTheyCreateAndLoseNothingOnAKill) {
  std::unique_ptr<testsupport::ChildProcess> a;
  std::unique_ptr<testsupport::ChildProcess> b;
  ASSERT_NO_FATAL_FAILURE(StartTwoReplicas(a, b));
  // The group's topics exist because the sidecars created them; the state topic compacted.
  auto partitions = testsupport::PartitionCount(kafka_.plaintext, group_ + ".tables", 10s);
  ASSERT_TRUE(partitions.ok()) << partitions.status().message();
  EXPECT_GE(*partitions, 1);
  auto policy = testsupport::TopicConfig(kafka_.Admin(), group_ + ".state", "cleanup.policy");
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ(*policy, "compact");
  // Both replicas own tables: the coordinator split them.
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return OwnsATable(a->Stderr()) && OwnsATable(b->Stderr()); }, 60s))
      << a->Stderr() << b->Stderr();

  // kill -9 of one replica, then new rows in every table: all reach Kafka through the other.
  ASSERT_TRUE(a->Signal(SIGKILL).ok());
  ASSERT_TRUE(a->Wait(30s).ok());
  for (const auto& t : tables_) {
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(emu_.store()
                      .Insert(t, {{"short_description", "after the kill " + std::to_string(i)}})
                      .ok());
    }
  }
  EXPECT_TRUE(testsupport::WaitFor([&] { return EveryRowInItsTopic(); }, 90s)) << b->Stderr();
  ASSERT_TRUE(b->Signal(SIGTERM).ok());
  EXPECT_TRUE(b->Wait(60s).ok());
}

TEST_F(SourceGroupRealKafkaTest, ASigtermedReplicaHandsItsTablesOverWithoutDuplicates) {
  std::unique_ptr<testsupport::ChildProcess> a;
  std::unique_ptr<testsupport::ChildProcess> b;
  ASSERT_NO_FATAL_FAILURE(StartTwoReplicas(a, b));
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return OwnsATable(a->Stderr()) && OwnsATable(b->Stderr()); }, 60s))
      << a->Stderr() << b->Stderr();
  // Rows created while the handoff runs, then SIGTERM (a pod eviction): a exits cleanly.
  InsertRows("during the handoff", 2);
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(a->Signal(SIGTERM).ok());
  auto exit = a->Wait(60s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << a->Stderr();
  InsertRows("after the handoff", 2);
  // Every row reaches its topic through b. The time is printed, not asserted: a clean leave
  // needs no session timeout (6 s here), but a loaded machine stretches the polls.
  ASSERT_TRUE(testsupport::WaitFor([&] { return EveryRowInItsTopic(); }, 90s)) << b->Stderr();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t dups = 0;
  for (const auto& t : tables_) dups += DuplicatesIn(Topic(t));
  std::printf(
      "[ figures  ] SIGTERM to every row in Kafka through the other replica: %.1f s, "
      "duplicates %zu\n",
      seconds, dups);
  EXPECT_EQ(dups, 0u);
  ASSERT_TRUE(b->Signal(SIGTERM).ok());
  EXPECT_TRUE(b->Wait(60s).ok());
}

}  // namespace
}  // namespace snowcar::realkafka
