// SPDX-License-Identifier: Apache-2.0
// Exactly-once source with deletes from the audit trail (deletes=audit, tombstones on), on
// Apache Kafka: the table's rows and its deletes stream each commit their records with their
// own cursor in transactions of their own (docs/semantics.md, "Exactly-once"). A kill -9 loop
// while rows are inserted and deleted leaves a read_committed reader with each row's UPSERT,
// and each deleted row's DELETE and TOMBSTONE, exactly once, no DELETE before its UPSERT.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "real_kafka.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;

class ExactlyOnceDeletesRealKafkaTest : public RealKafkaTest {
 protected:
  void SetUp() override {
    RealKafkaTest::SetUp();
    if (HasFatalFailure()) return;
    topic_ = testsupport::UniqueName("eosdel.incident");
    state_topic_ = testsupport::UniqueName("eosdel.state");
    ASSERT_TRUE(testsupport::CreateTopic(kafka_.Admin(), topic_, 3).ok());
  }

  std::vector<std::string> Config(const std::string& name) const {
    auto lines = BaseConfig(name);
    lines.insert(
        lines.end(),
        {"kafka.bootstrap.servers=" + kafka_.plaintext, "sink.enabled=false", "source.enabled=true",
         "snow.tables=" + alias_, "snow.table." + alias_ + ".name=incident",
         "snow.table." + alias_ + ".topic=" + topic_, "snow.table." + alias_ + ".deletes=audit",
         "snow.source.emit.tombstones=true", "snow.source.batch.size=100",
         "snow.source.poll.interval.ms=100", "snow.source.safety.lag.seconds=0",
         "exactly.once.source.support=required",
         "snow.source.exactly.once.state.topic=" + state_topic_});
    return lines;
  }

  // Per key, how many records of each operation (UPSERT, DELETE, TOMBSTONE) a reader with
  // `isolation` finds in the table's topic. `overtaken` counts UPSERTs read after their key's
  // DELETE (a key's records share a partition, which kcat prints in offset order).
  std::map<std::string, std::map<std::string, size_t>> Operations(const std::string& isolation,
                                                                  size_t* overtaken = nullptr) {
    std::map<std::string, std::map<std::string, size_t>> out;
    auto r = testsupport::ReadTopicWithKcat(kafka_.plaintext, topic_, "%k\t%h\n", 60s,
                                            {"-X", "isolation.level=" + isolation});
    if (!r.ok()) return out;
    std::istringstream lines(r->out);
    for (std::string line; std::getline(lines, line);) {
      const size_t tab = line.find('\t');
      if (tab == std::string::npos || tab == 0) continue;
      std::string op = "UPSERT";
      for (const char* candidate : {"DELETE", "TOMBSTONE"}) {
        if (line.find(std::string("snow.source.operation=") + candidate, tab) !=
            std::string::npos) {
          op = candidate;
        }
      }
      auto& ops = out[line.substr(0, tab)];
      if (op == "UPSERT" && ops.count("DELETE") != 0 && overtaken != nullptr) ++*overtaken;
      ++ops[op];
    }
    return out;
  }

  struct Tally {
    size_t lost = 0;
    size_t duplicates = 0;
    size_t deletes = 0;    // DELETE records read
    size_t overtaken = 0;  // UPSERTs after their row's DELETE
  };
  // Rows are inserted once and never updated. A live row: one UPSERT, nothing else. A deleted
  // row: one DELETE and one TOMBSTONE, and at most one UPSERT (none when it was deleted before
  // the row stream read it).
  Tally Read(const std::string& isolation) {
    Tally t;
    const auto ops = Operations(isolation, &t.overtaken);
    const auto count = [&](const std::string& id, const std::string& op) -> size_t {
      auto it = ops.find(id);
      if (it == ops.end()) return 0;
      auto n = it->second.find(op);
      return n == it->second.end() ? 0 : n->second;
    };
    const auto expect = [&](size_t n, size_t want) {
      if (n < want) t.lost += want - n;
      if (n > want) t.duplicates += n - want;
    };
    for (const std::string& id : live_) {
      expect(count(id, "UPSERT"), 1);
      t.duplicates += count(id, "DELETE") + count(id, "TOMBSTONE");
    }
    for (const std::string& id : deleted_) {
      expect(count(id, "DELETE"), 1);
      expect(count(id, "TOMBSTONE"), 1);
      if (count(id, "UPSERT") > 1) t.duplicates += count(id, "UPSERT") - 1;
      t.deletes += count(id, "DELETE");
    }
    return t;
  }

  void Refresh() {
    live_.clear();
    auto rows = emu_.store().Snapshot("incident");
    ASSERT_TRUE(rows.ok());
    for (const auto& row : *rows) live_.insert(std::string(row->sys_id()));
  }

  // Deletes `n` live rows (the oldest ids in order, so they span pages already read and not).
  void DeleteSome(size_t n) {
    Refresh();
    for (size_t i = 0; i < n && !live_.empty(); ++i) {
      const std::string id = *live_.begin();
      ASSERT_TRUE(emu_.store().Delete("incident", id).ok());
      live_.erase(id);
      deleted_.insert(id);
    }
  }

  std::string topic_;
  std::string state_topic_;
  // The transactional ids are the instance's host and the alias: an alias per test process.
  std::string alias_ = "incdel" + std::to_string(::getpid());
  std::set<std::string> live_;
  std::set<std::string> deleted_;
};

TEST_F(ExactlyOnceDeletesRealKafkaTest, KillLoopWithAuditDeletesLeavesNoDuplicateAndNoLoss) {
  // A small backlog, so the row stream catches up and the deletes stream (which waits for its
  // finished sweeps) is producing and committing when the kills land.
  constexpr int kKills = 8;
  ASSERT_TRUE(
      emulator::Populate(emu_.store(), "incident", {.rows = 300, .rows_per_second = 50}).ok());
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::printf("exactly-once deletes kill loop: kills=%d seed=%u\n", kKills, seed);
  for (int k = 0; k < kKills; ++k) {
    auto child = StartForKill("k", Config("k"), rng, 1200);
    ASSERT_NE(child, nullptr);
    DeleteSome(15);
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(emu_.store()
                      .Insert("incident", {{"short_description", "kill " + std::to_string(k)}})
                      .ok());
    }
    // A deletion while the deletes stream may be mid-page: kill -9 wherever it is.
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 300)(rng)));
    DeleteSome(5);
    ASSERT_TRUE(child->Signal(SIGKILL).ok());
    ASSERT_TRUE(child->Wait(10s).ok());
  }
  Refresh();
  std::printf("before the last start: read_committed DELETE records=%zu of %zu deletions\n",
              Read("read_committed").deletes, deleted_.size());
  auto last = StartSidecar("k", Config("k"));
  ASSERT_NE(last, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Read("read_committed").lost == 0; }, 180s))
      << last->Stderr();
  const Tally committed = Read("read_committed");
  std::printf(
      "rows live=%zu deleted=%zu; read_committed DELETE records=%zu duplicates=%zu "
      "lost=%zu overtaken=%zu\n",
      live_.size(), deleted_.size(), committed.deletes, committed.duplicates, committed.lost,
      committed.overtaken);
  EXPECT_EQ(committed.duplicates, 0u);
  EXPECT_EQ(committed.lost, 0u);
  EXPECT_EQ(committed.deletes, deleted_.size());
  // Two producers now, yet no DELETE overtakes its row's UPSERT.
  EXPECT_EQ(committed.overtaken, 0u);
  // Both streams keep their state on the state topic, each under its own transactional id.
  std::set<std::string> keys;
  auto state = testsupport::ReadTopicWithKcat(kafka_.plaintext, state_topic_, "%k\n", 60s,
                                              {"-X", "isolation.level=read_committed"});
  ASSERT_TRUE(state.ok());
  std::istringstream lines(state->out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) keys.insert(line);
  }
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_TRUE(keys.rbegin()->ends_with(alias_ + ".deletes")) << *keys.rbegin();
  (void)last->Signal(SIGTERM);
  (void)last->Wait(30s);
}

}  // namespace
}  // namespace snowcar::realkafka
