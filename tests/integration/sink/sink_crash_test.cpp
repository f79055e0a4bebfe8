// SPDX-License-Identifier: Apache-2.0
// (d) kill -9 at random points during a stream of commands, round after round: at the end the
// table equals what applying every command once, in order, gives; creates under
// correlation_lookup leave no duplicate row.
//
// Every round restarts the sink on the same state dir (the correlation cache survives) and
// resumes from the offsets the killed process committed. The mock broker makes a new member of
// a group whose old member was killed wait a whole session timeout, so each round joins a new
// group seeded with the previous group's committed offsets: the same resume point, without the
// wait.
#include <signal.h>

#include <random>
#include <set>
#include <thread>

#include "sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

constexpr int kPartitions = 2;
constexpr int kRows = 6;
constexpr int kChains = 2;           // independent sinks killed side by side
constexpr int kRoundsPerChain = 10;  // 20 kill -9 rounds in all
constexpr int kPerRound = 8;

// One sink (its own topic, group chain, state dir and rows), killed round after round.
struct Chain {
  int id = 0;
  std::string topic;
  std::map<std::string, std::string> expected;  // sys_id -> short_description
  std::set<std::string> creates;                // correlation ids
  int produced = 0;
  int seq = 0;
  std::string group;
};

class KillNineTest : public SinkIntegrationTest {
 protected:
  const std::vector<std::string> sets_ = {"snow.sink.create.ambiguous.behavior=correlation_lookup",
                                          "snow.sink.correlation.field=correlation_id",
                                          "snow.sink.max.in.flight=4"};

  std::string RowId(const Chain& c, int row) { return SysId(c.id * 100 + row); }

  void ProduceBatch(Chain& c, testsupport::TestProducer& producer) {
    std::vector<testsupport::OutMessage> batch;
    for (int i = 0; i < kPerRound; ++i, ++c.seq) {
      if (c.seq % 4 == 3) {
        const std::string corr = "corr-" + std::to_string(c.id) + "-" + std::to_string(c.seq);
        c.creates.insert(corr);
        batch.push_back(Command(
            std::nullopt,
            boost::json::object{{"correlation_id", corr}, {"short_description", "created " + corr}},
            c.seq % kPartitions));
      } else {
        const int row = c.seq % kRows;  // a row always goes to the same partition
        const std::string value = "v" + std::to_string(c.seq);
        c.expected[RowId(c, row)] = value;
        batch.push_back(Command(RowId(c, row), boost::json::object{{"short_description", value}},
                                row % kPartitions));
      }
    }
    auto reports = producer.ProduceAll(c.topic, batch, 20s);
    ASSERT_TRUE(reports.ok()) << reports.status().ToString();
    c.produced += kPerRound;
  }

  void RunChain(Chain& c, unsigned seed) {
    std::mt19937 rng(seed);
    auto producer = testsupport::TestProducer::Create(bootstrap(), {{"linger.ms", "1"}});
    ASSERT_TRUE(producer.ok());
    const std::string state = "state-" + std::to_string(c.id);
    c.group = NewGroup();
    for (int round = 0; round < kRoundsPerChain; ++round) {
      ProduceBatch(c, **producer);
      auto sink = StartSink(c.topic, c.group, sets_, state);
      WaitAssigned(sink, kPartitions);
      // The crash point: somewhere between "nothing done yet" and "all done".
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 250));  // NOLINT
      ASSERT_TRUE(sink.child->Signal(SIGKILL).ok());
      auto status = sink.child->Wait(10s);
      ASSERT_TRUE(status.ok());
      ASSERT_EQ(status->signal, SIGKILL);
      const auto committed = Committed(c.group, c.topic, kPartitions);
      c.group = NewGroup();
      CommitFor(c.group, c.topic, committed);
    }
    // A last run without a crash drains the rest.
    auto sink = StartSink(c.topic, c.group, sets_, state);
    WaitAssigned(sink, kPartitions);
    ASSERT_TRUE(WaitFor(
        [&] {
          int64_t total = 0;
          for (auto o : Committed(c.group, c.topic, kPartitions)) total += std::max<int64_t>(o, 0);
          return total == c.produced;
        },
        60s, 100ms))
        << Tail(sink);
    StopSink(sink);
  }
};

TEST_F(KillNineTest, KillNineAtRandomPointsConvergesWithoutDuplicates) {
  emulator().faults().SetLatency({.fixed_ms = 3, .jitter_ms = 12, .scope = {}});
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<Chain> chains(kChains);
  for (int c = 0; c < kChains; ++c) {
    chains[c].id = c;
    chains[c].topic = NewTopic(kPartitions);
    for (int r = 0; r < kRows; ++r) Seed(RowId(chains[c], r), {{"short_description", "start"}});
  }
  std::vector<std::thread> threads;
  threads.reserve(kChains);
  for (int c = 0; c < kChains; ++c) {
    threads.emplace_back([this, &chains, c, seed] { RunChain(chains[c], seed + c); });
  }
  for (auto& t : threads) t.join();
  ASSERT_FALSE(HasFatalFailure());

  std::map<std::string, int> seen;
  for (auto& row : Rows()) {
    if (!row["correlation_id"].empty()) ++seen[row["correlation_id"]];
  }
  for (const auto& c : chains) {
    for (const auto& [sys_id, value] : c.expected) {
      auto row = Row(sys_id);
      ASSERT_TRUE(row.has_value()) << sys_id;
      EXPECT_EQ(row->at("short_description"), value) << sys_id;
    }
    for (const auto& corr : c.creates) EXPECT_EQ(seen[corr], 1) << corr << " duplicated or missing";
  }
  size_t creates = 0;
  for (const auto& c : chains) creates += c.creates.size();
  EXPECT_EQ(seen.size(), creates);
}

}  // namespace
}  // namespace snowcar::sinkit
