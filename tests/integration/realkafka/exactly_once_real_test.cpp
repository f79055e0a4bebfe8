// SPDX-License-Identifier: Apache-2.0
// Exactly-once source on Apache Kafka (docs/semantics.md, "Exactly-once"). The embedded broker
// cannot show any of this: it hands records of open and aborted transactions to
// read_committed readers (docs/embedded-broker.md).
//
// Proven here: with exactly.once.source.support=required each page is one transaction with
// the table's state on the state topic; a kill -9 loop at random points (mid-page, between
// produce and commit, during start-up) leaves a read_committed reader with every row exactly
// once, and the same loop at least once leaves duplicates; a replica frozen with SIGSTOP while
// another process takes the table over is fenced once it resumes and stops the table.
//
// EOS_KILL_LOOP_KILLS=N runs the kill loops with N kills (default 10; not a SNOWCAR_ name,
// which the sidecars would read as configuration), EOS_KILL_LOOP_VERBOSE=1 prints each
// kill's progress and the sidecar's log; docs/reliability.md records a long run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
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

// key -> records of `topic` read with `isolation` (kcat, from the start to the end).
std::map<std::string, size_t> Count(const std::string& bootstrap, const std::string& topic,
                                    const std::string& isolation) {
  std::map<std::string, size_t> out;
  auto r = testsupport::ReadTopicWithKcat(bootstrap, topic, "%k\n", 60s,
                                          {"-X", "isolation.level=" + isolation});
  if (!r.ok()) return out;
  std::istringstream lines(r->out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) ++out[line];
  }
  return out;
}

int Kills() {
  const char* env = std::getenv("EOS_KILL_LOOP_KILLS");
  return env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 10;
}

class ExactlyOnceRealKafkaTest : public RealKafkaTest {
 protected:
  void SetUp() override {
    RealKafkaTest::SetUp();
    if (HasFatalFailure()) return;
    topic_ = testsupport::UniqueName("eos.incident");
    state_topic_ = testsupport::UniqueName("eos.state");
    ASSERT_TRUE(testsupport::CreateTopic(kafka_.Admin(), topic_, 3).ok());
  }

  std::vector<std::string> Config(const std::string& name, const std::string& mode) const {
    auto lines = BaseConfig(name);
    lines.insert(
        lines.end(),
        {"kafka.bootstrap.servers=" + kafka_.plaintext, "sink.enabled=false", "source.enabled=true",
         "snow.tables=" + alias_, "snow.table." + alias_ + ".name=incident",
         "snow.table." + alias_ + ".topic=" + topic_, "snow.source.batch.size=200",
         "snow.source.poll.interval.ms=100", "snow.source.safety.lag.seconds=0",
         "exactly.once.source.support=" + mode,
         "snow.source.exactly.once.state.topic=" + state_topic_});
    return lines;
  }

  void Insert(size_t n, const std::string& what) {
    for (size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(
          emu_.store().Insert("incident", {{"short_description", what + std::to_string(i)}}).ok());
    }
  }

  std::set<std::string> RowIds() {
    std::set<std::string> ids;
    auto rows = emu_.store().Snapshot("incident");
    if (rows.ok()) {
      for (const auto& row : *rows) ids.insert(std::string(row->sys_id()));
    }
    return ids;
  }

  struct Tally {
    size_t lost = 0;
    size_t duplicates = 0;
    size_t records = 0;
  };
  // Rows are inserted once and never updated: a key seen twice is a duplicate.
  Tally Read(const std::string& isolation) {
    const auto counts = Count(kafka_.plaintext, topic_, isolation);
    Tally t;
    for (const std::string& id : RowIds()) {
      auto it = counts.find(id);
      if (it == counts.end()) {
        ++t.lost;
      } else {
        t.duplicates += it->second - 1;
      }
    }
    for (const auto& [key, n] : counts) t.records += n;
    return t;
  }

  bool AllRowsCommitted() { return Read("read_committed").lost == 0; }

  // Starts the sidecar `kills` times and kills each with SIGKILL at a random point while it
  // reads a large backlog and rows keep coming, then lets a last one finish. One kill in four
  // lands anywhere in start-up (fencing, restore), the others within 400 ms of the table
  // starting, while pages are being produced and committed.
  void KillLoop(const std::string& mode, int kills) {
    ASSERT_TRUE(
        emulator::Populate(emu_.store(), "incident",
                           {.rows = static_cast<size_t>(2000 * kills), .rows_per_second = 50})
            .ok());
    const unsigned seed = std::random_device{}();
    std::mt19937 rng(seed);
    std::printf("kill loop: mode=%s kills=%d seed=%u\n", mode.c_str(), kills, seed);
    for (int k = 0; k < kills; ++k) {
      auto child = StartForKill("k", Config("k", mode), rng, 400);
      ASSERT_NE(child, nullptr);
      Insert(10, "kill " + std::to_string(k) + " row ");
      ASSERT_TRUE(child->Signal(SIGKILL).ok());
      ASSERT_TRUE(child->Wait(10s).ok());
      if (std::getenv("EOS_KILL_LOOP_VERBOSE") != nullptr) {
        std::printf("kill %d: %zu records in the topic (read_uncommitted)\n%s\n", k,
                    Read("read_uncommitted").records, child->Stderr().c_str());
        std::fflush(stdout);
      }
    }
    auto last = StartSidecar("k", Config("k", mode));
    ASSERT_NE(last, nullptr);
    ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 240s)) << last->Stderr();
    (void)last->Signal(SIGTERM);
    (void)last->Wait(30s);
  }

  std::string topic_;
  std::string state_topic_;
  // The transactional id is the instance's host and the alias, and every emulator is on
  // 127.0.0.1: tests running side by side need aliases of their own, or they fence each other.
  std::string alias_ = "inc" + std::to_string(::getpid());
};

TEST_F(ExactlyOnceRealKafkaTest, EachPageIsOneTransactionWithTheTablesState) {
  Insert(120, "row ");
  auto child = StartSidecar("a", Config("a", "required"));
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 60s)) << child->Stderr();
  const Tally t = Read("read_committed");
  EXPECT_EQ(t.duplicates, 0u);
  EXPECT_EQ(t.records, 120u);
  // The state topic holds the table's state under its transactional id, and was created
  // compacted by the sidecar.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return !Count(kafka_.plaintext, state_topic_, "read_committed").empty(); }, 20s));
  const auto state = Count(kafka_.plaintext, state_topic_, "read_committed");
  ASSERT_EQ(state.size(), 1u);
  EXPECT_EQ(state.begin()->first.rfind("snowcar-source.", 0), 0u) << state.begin()->first;
  auto policy = testsupport::TopicConfig(kafka_.Admin(), state_topic_, "cleanup.policy");
  ASSERT_TRUE(policy.ok()) << policy.status().message();
  EXPECT_EQ(*policy, "compact");
  EXPECT_NE(child->Stderr().find("\"source.exactly_once.on\""), std::string::npos);
  ASSERT_TRUE(child->Signal(SIGTERM).ok());
  auto stopped = child->Wait(30s);
  ASSERT_TRUE(stopped.ok());
  EXPECT_TRUE(stopped->ok()) << stopped->ToString() << child->Stderr();
}

// transaction.boundary=interval: a transaction that is not full (fewer rows than a page of 25)
// stays open up to 300 ms before it commits, and every row is still read once, including rows
// that come after the backlog (committed by the interval's timer).
TEST_F(ExactlyOnceRealKafkaTest, IntervalBoundaryCommitsEveryRowOnce) {
  Insert(150, "row ");
  auto lines = Config("a", "required");
  for (std::string& line : lines) {
    if (line.starts_with("snow.source.batch.size=")) line = "snow.source.batch.size=25";
  }
  lines.insert(lines.end(),
               {"transaction.boundary=interval", "transaction.boundary.interval.ms=300"});
  auto child = StartSidecar("a", lines);
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 60s)) << child->Stderr();
  Insert(10, "later ");
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 30s)) << child->Stderr();
  const Tally t = Read("read_committed");
  EXPECT_EQ(t.duplicates, 0u);
  EXPECT_EQ(t.records, 160u);
  EXPECT_NE(child->Stderr().find("\"boundary\":\"interval\""), std::string::npos);
  (void)child->Signal(SIGTERM);
  (void)child->Wait(30s);
}

TEST_F(ExactlyOnceRealKafkaTest, KillLoopLeavesReadCommittedReadersNoDuplicateAndNoLoss) {
  KillLoop("required", Kills());
  const Tally committed = Read("read_committed");
  const Tally uncommitted = Read("read_uncommitted");
  std::printf(
      "exactly-once kill loop: rows=%zu read_committed records=%zu duplicates=%zu "
      "lost=%zu; read_uncommitted records=%zu (aborted records included)\n",
      RowIds().size(), committed.records, committed.duplicates, committed.lost,
      uncommitted.records);
  EXPECT_EQ(committed.duplicates, 0u);
  EXPECT_EQ(committed.lost, 0u);
}

TEST_F(ExactlyOnceRealKafkaTest, TheSameKillLoopAtLeastOnceLeavesDuplicates) {
  KillLoop("disabled", Kills());
  const Tally t = Read("read_committed");
  std::printf("at-least-once kill loop: rows=%zu records=%zu duplicates=%zu lost=%zu\n",
              RowIds().size(), t.records, t.duplicates, t.lost);
  EXPECT_EQ(t.lost, 0u);
  EXPECT_GT(t.duplicates, 0u);
}

TEST_F(ExactlyOnceRealKafkaTest, AFrozenReplicaIsFencedWhenAnotherTakesTheTable) {
  emu_.faults().SetLatency({.fixed_ms = 30, .jitter_ms = 30});
  Insert(300, "row ");
  auto a = StartSidecar("a", Config("a", "required"));
  ASSERT_NE(a, nullptr);
  // Frozen mid-stream, with a transaction open.
  ASSERT_TRUE(testsupport::WaitFor([&] { return Read("read_uncommitted").records > 50; }, 60s))
      << a->Stderr();
  ASSERT_TRUE(a->Signal(SIGSTOP).ok());
  // Another process (its own state directory) takes the table: its init fences the frozen
  // one, and it restores the state the frozen one committed last.
  Insert(50, "after the freeze ");
  auto b = StartSidecar("b", Config("b", "required"));
  ASSERT_NE(b, nullptr);
  emu_.faults().SetLatency({});
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 90s)) << b->Stderr();
  ASSERT_TRUE(a->Signal(SIGCONT).ok());
  Insert(20, "after the thaw ");
  // The resumed one finds itself fenced at its next transaction step and stops the table.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return a->Stderr().find("\"source.table_failed\"") != std::string::npos; }, 60s))
      << a->Stderr();
  EXPECT_NE(a->Stderr().find("never produces for the table again"), std::string::npos);
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 60s)) << b->Stderr();
  const Tally t = Read("read_committed");
  EXPECT_EQ(t.duplicates, 0u);
  EXPECT_EQ(t.lost, 0u);
  (void)a->Signal(SIGKILL);
  (void)b->Signal(SIGTERM);
  (void)b->Wait(30s);
}

// The outcome table's aborted-transaction row: a record of the page that Kafka will not take
// (larger than the broker's message limit) aborts the page's transaction; a read_committed
// reader sees none of that page, the table backs off and reads it again; once the row is
// gone every row arrives exactly once.
TEST_F(ExactlyOnceRealKafkaTest, AnAbortedTransactionHidesItsPageUntilItCanBeWritten) {
  Insert(40, "before ");
  auto big = emu_.store().Insert("incident", {{"short_description", std::string(1500000, 'x')}});
  ASSERT_TRUE(big.ok());
  Insert(40, "after ");
  auto child = StartSidecar("a", Config("a", "required"));
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find("\"source.transaction_aborted\"") != std::string::npos; },
      60s))
      << child->Stderr();
  EXPECT_EQ(Read("read_committed").records, 0u);
  ASSERT_TRUE(emu_.store().Delete("incident", big->row->sys_id()).ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 90s)) << child->Stderr();
  const Tally t = Read("read_committed");
  EXPECT_EQ(t.duplicates, 0u);
  EXPECT_EQ(t.records, 80u);
  (void)child->Signal(SIGTERM);
  (void)child->Wait(30s);
}

// The outcome table's transaction-timeout row: the sidecar frozen (SIGSTOP) with a transaction
// open, past kafka.transaction.timeout.ms. The coordinator aborts it (seen here as a marker
// record written behind the transaction's records becoming readable to read_committed) and
// bumps the id's epoch; once resumed, the sidecar's next step is refused as fenced, and the
// table stops naming the timeout. A restart takes it up again: every row once.
TEST_F(ExactlyOnceRealKafkaTest, ATransactionFrozenPastItsTimeoutStopsTheTableUntilARestart) {
  Insert(40, "row ");
  auto lines = Config("a", "required");
  lines.insert(lines.end(),
               {"transaction.boundary=interval", "transaction.boundary.interval.ms=1500",
                "kafka.transaction.timeout.ms=3000"});
  auto child = StartSidecar("a", lines);
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 60s)) << child->Stderr();
  // Rows keep coming, so a transaction is open most of the time; stop the sidecar until one is
  // (read_uncommitted sees records read_committed does not).
  bool open = false;
  for (int attempt = 0; attempt < 40 && !open; ++attempt) {
    Insert(5, "frozen " + std::to_string(attempt) + " ");
    std::this_thread::sleep_for(150ms);
    ASSERT_TRUE(child->Signal(SIGSTOP).ok());
    open = Read("read_uncommitted").records > Read("read_committed").records;
    if (!open) {
      ASSERT_TRUE(child->Signal(SIGCONT).ok());
    }
  }
  ASSERT_TRUE(open) << "no transaction open at any of 40 stops";
  // A plain record behind the open transaction in every partition: read_committed readers see
  // it once the transaction is no longer open, i.e. once the broker aborted it (its check
  // runs every 10 s by default).
  std::vector<testsupport::OutMessage> markers;
  for (int32_t p = 0; p < 3; ++p) {
    testsupport::OutMessage marker;
    marker.key = "marker";
    marker.value = "m";
    marker.partition = p;
    markers.push_back(std::move(marker));
  }
  ASSERT_TRUE(testsupport::ProduceMessages(kafka_.plaintext, topic_, markers, 30s).ok());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return Count(kafka_.plaintext, topic_, "read_committed")["marker"] == 3; }, 60s));
  ASSERT_TRUE(child->Signal(SIGCONT).ok());
  Insert(10, "after the thaw ");
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find("\"source.table_failed\"") != std::string::npos; }, 30s))
      << child->Stderr();
  EXPECT_NE(child->Stderr().find("past kafka.transaction.timeout.ms (3000)"), std::string::npos)
      << child->Stderr();
  EXPECT_EQ(Read("read_committed").duplicates, 0u);
  (void)child->Signal(SIGTERM);
  ASSERT_TRUE(child->Wait(30s).ok());
  auto again = StartSidecar("a", lines);
  ASSERT_NE(again, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 60s)) << again->Stderr();
  const Tally t = Read("read_committed");
  EXPECT_EQ(t.duplicates, 0u);
  EXPECT_EQ(t.lost, 0u);
  (void)again->Signal(SIGTERM);
  (void)again->Wait(30s);
}

// The outcome table's broker-unavailable row: the broker restarts (a controlled shutdown and
// start, on a broker of the test's own) while pages are committed; transactions that cannot
// finish are aborted and read again, and a read_committed reader counts every row once.
TEST_F(ExactlyOnceRealKafkaTest, ABrokerRestartMidStreamLeavesNoDuplicateAndNoLoss) {
  UseOwnBroker({});
  if (HasFatalFailure()) return;
  ASSERT_TRUE(testsupport::CreateTopic(kafka_.Admin(), topic_, 3).ok());
  emu_.faults().SetLatency({.fixed_ms = 20, .jitter_ms = 20});
  ASSERT_TRUE(
      emulator::Populate(emu_.store(), "incident", {.rows = 6000, .rows_per_second = 50}).ok());
  auto child = StartSidecar("a", Config("a", "required"));
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Read("read_committed").records > 400; }, 60s))
      << child->Stderr();
  ASSERT_TRUE(own_broker_->Signal(SIGUSR1).ok());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return own_broker_->Stderr().find("kafka-server: restarted") != std::string::npos; },
      120s))
      << own_broker_->Stderr();
  emu_.faults().SetLatency({});
  Insert(20, "after the restart ");
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllRowsCommitted(); }, 180s)) << child->Stderr();
  const Tally t = Read("read_committed");
  std::printf(
      "broker restart: rows=%zu records=%zu duplicates=%zu aborted transactions "
      "logged=%s\n",
      RowIds().size(), t.records, t.duplicates,
      child->Stderr().find("\"source.transaction_aborted\"") != std::string::npos ? "yes" : "no");
  EXPECT_EQ(t.duplicates, 0u);
  EXPECT_EQ(t.lost, 0u);
  (void)child->Signal(SIGTERM);
  (void)child->Wait(30s);
}

}  // namespace
}  // namespace snowcar::realkafka
