// SPDX-License-Identifier: Apache-2.0
// snow.sink.ordering=key on the wire (real sidecar processes, the emulator, the embedded
// broker): one partition, several keys. Each key's commands reach the instance strictly in
// offset order while keys overlap, under 503s and 429 storms, across kill -9, and records
// finished above the committed offset are not applied again by the next owner.
//
// Every command of key (chain) c patches its own row R(c, i), named in the value; the key is
// a JSON object without a sys_id, so it only decides the order. The journal then shows each
// key's order: the rows of a chain must be written R(c, 0), R(c, 1), ... one after another.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <thread>

#include "sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

std::string RowOf(int chain, int step) { return SysId(chain * 1000 + step); }

testsupport::OutMessage ChainCommand(int chain, int step) {
  boost::json::object value{
      {"sys_id", RowOf(chain, step)},
      {"short_description", std::to_string(chain) + "-" + std::to_string(step)}};
  return Command(R"({"chain":")" + std::to_string(chain) + R"("})", value, 0);
}

// The steps of each chain in the order the journal shows them applied (status 200), for the
// journal entries with seq in (after, upto].
std::map<int, std::vector<int>> AppliedSteps(const std::vector<emulator::JournalEntry>& journal,
                                             int chains, int steps, uint64_t after = 0,
                                             uint64_t upto = UINT64_MAX) {
  std::map<int, std::vector<int>> out;
  for (const auto& e : journal) {
    if (e.method != "PATCH" || e.status != 200 || e.seq <= after || e.seq > upto) continue;
    for (int c = 0; c < chains; ++c) {
      for (int i = 0; i < steps; ++i) {
        if (e.target.find(RowOf(c, i)) != std::string::npos) out[c].push_back(i);
      }
    }
  }
  return out;
}

class KeyOrderTest : public SinkIntegrationTest {
 protected:
  void SeedChains(int chains, int steps) {
    for (int c = 0; c < chains; ++c) {
      for (int i = 0; i < steps; ++i) Seed(RowOf(c, i), {{"short_description", "start"}});
    }
  }
  // Interleaves the chains at random: each chain's steps stay in order on the partition.
  std::vector<testsupport::OutMessage> Interleaved(int chains, int steps, unsigned seed) {
    std::vector<int> next(chains, 0);
    std::vector<testsupport::OutMessage> out;
    std::mt19937 rng(seed);
    while (static_cast<int>(out.size()) < chains * steps) {
      const int c = static_cast<int>(rng() % chains);
      if (next[c] == steps) continue;
      out.push_back(ChainCommand(c, next[c]++));
    }
    return out;
  }
  uint64_t LastSeq() {
    auto j = Journal();
    return j.empty() ? 0 : j.back().seq;
  }
};

TEST_F(KeyOrderTest, EachKeysOrderHoldsWhileKeysOverlapUnder503sAnd429Storms) {
  constexpr int kChains = 6;
  constexpr int kSteps = 12;
  const std::string topic = NewTopic(1);
  const std::string group = NewGroup();
  SeedChains(kChains, kSteps);
  emulator().faults().SetLatency({.fixed_ms = 5, .jitter_ms = 15, .scope = {}});
  emulator().faults().AddRule({.kind = emulator::FaultKind::kRateLimit,
                               .scope = {.method = "PATCH", .path_prefix = ""},
                               .share = 0.2,
                               .retry_after_seconds = 1});
  emulator().faults().AddRule({.kind = emulator::FaultKind::kServerError,
                               .scope = {.method = "PATCH", .path_prefix = ""},
                               .share = 0.2,
                               .status = 503});
  auto sink = StartSink(
      topic, group,
      {"snow.sink.ordering=key", "snow.sink.max.in.flight=4", "snow.http.max.concurrent.requests=4",
       "snow.retry.max.attempts=2", "snow.retry.max.elapsed.ms=60000"});
  WaitAssigned(sink, 1);
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto messages = Interleaved(kChains, kSteps, seed);
  Produce(topic, messages);
  ASSERT_TRUE(WaitFor(
      [&] {
        return Metric(sink, "snowcar_sink_records_total{operation=\"patch\"}") ==
               static_cast<int64_t>(messages.size());
      },
      90s, 50ms))
      << Tail(sink);
  int throttled = 0;
  int unavailable = 0;
  for (const auto& e : Journal()) {
    throttled += e.status == 429;
    unavailable += e.status == 503;
  }
  EXPECT_GT(throttled, 0) << "the storm happened";
  EXPECT_GT(unavailable, 0);
  const auto applied = AppliedSteps(Journal(), kChains, kSteps);
  for (int c = 0; c < kChains; ++c) {
    std::vector<int> expected(kSteps);
    for (int i = 0; i < kSteps; ++i) expected[i] = i;
    EXPECT_EQ(applied.count(c) ? applied.at(c) : std::vector<int>{}, expected)
        << "chain " << c << ": its key's commands out of order, lost or repeated";
  }
  // Keys overlapped on the one partition, never past the limit.
  const int64_t max_seen = Metric(sink, "snowcar_sink_in_flight_max");
  EXPECT_GE(max_seen, 2);
  EXPECT_LE(max_seen, 4);
  ASSERT_TRUE(WaitFor(
      [&] { return Committed(group, topic, 1)[0] == static_cast<int64_t>(messages.size()); }, 10s,
      100ms));
  StopSink(sink);
}

// The partition moves to another member (a rebalance: the first one leaves) while one key is
// held by a failing row: the commit stays at that key's record, the records of the other keys
// finished above it travel in the commit metadata, and the new owner applies none of them
// again. Then the held record goes through and the commit catches up.
TEST_F(KeyOrderTest, RecordsDoneAboveTheCommitAreNotAppliedAgainByTheNextOwner) {
  constexpr int kChains = 21;
  const std::string topic = NewTopic(1);
  const std::string group = NewGroup();
  SeedChains(kChains, 1);
  // Chain 0's row answers 503 until the fault is cleared: its record is held at offset 0.
  emulator().faults().AddRule(
      {.kind = emulator::FaultKind::kServerError,
       .scope = {.method = "PATCH",
                 .path_prefix = std::string("/api/now/table/") + kTable + "/" + RowOf(0, 0)},
       .share = 1.0,
       .status = 503});
  const std::vector<std::string> sets = {"snow.sink.ordering=key", "snow.sink.max.in.flight=4"};
  auto first = StartSink(topic, group, sets, "first");
  WaitAssigned(first, 1);
  std::vector<testsupport::OutMessage> messages;
  for (int c = 0; c < kChains; ++c) messages.push_back(ChainCommand(c, 0));
  Produce(topic, messages);
  ASSERT_TRUE(WaitFor(
      [&] {
        return Metric(first, "snowcar_sink_records_total{operation=\"patch\"}") == kChains - 1;
      },
      30s, 50ms))
      << Tail(first);
  // The commit waits at the held record; what finished above it is in the metadata.
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 0; }, 10s, 100ms));
  const auto lane = Partitions(first).at("partitions").as_array().at(0).as_object();
  EXPECT_EQ(lane.at("in_flight_offset").as_int64(), 0);
  EXPECT_EQ(lane.at("last_error").as_object().at("class").as_string(), "RETRIES_EXHAUSTED");

  auto second = StartSink(topic, group, sets, "second");
  StopSink(first);  // revoked: the second member takes the partition over
  WaitAssigned(second, 1);
  const uint64_t handed_over = LastSeq();
  emulator().faults().Clear();
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == kChains; }, 30s, 100ms))
      << Tail(second);
  // Each row was written exactly once: the new owner applied only the held record.
  const auto applied = AppliedSteps(Journal(), kChains, 1);
  for (int c = 0; c < kChains; ++c) {
    EXPECT_EQ(applied.count(c) ? applied.at(c).size() : 0u, 1u) << "chain " << c;
  }
  const auto after = AppliedSteps(Journal(), kChains, 1, handed_over);
  EXPECT_EQ(after.size(), 1u);
  EXPECT_EQ(after.count(0), 1u) << "the next owner wrote only the held record";
  EXPECT_EQ(Metric(second, "snowcar_sink_records_total{operation=\"patch\"}"), 1);
  StopSink(second);
}

// kill -9 at random points, round after round, under key ordering. Within each process's
// life every key's commands are applied in order; across a crash a key may be applied again
// from the committed point (the duplicates this allows are counted and printed); at the end
// every command was applied and the commit is at the end.
TEST_F(KeyOrderTest, KillNineKeepsEachKeysOrderAndLosesNothing) {
  constexpr int kChains = 5;
  constexpr int kSteps = 24;
  constexpr int kRounds = 6;
  const std::string topic = NewTopic(1);
  SeedChains(kChains, kSteps);
  emulator().faults().SetLatency({.fixed_ms = 3, .jitter_ms = 12, .scope = {}});
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  const auto messages = Interleaved(kChains, kSteps, seed);
  Produce(topic, messages);
  const std::vector<std::string> sets = {"snow.sink.ordering=key", "snow.sink.max.in.flight=4"};
  std::string group = NewGroup();
  std::vector<uint64_t> boundaries = {0};
  for (int round = 0; round < kRounds; ++round) {
    auto sink = StartSink(topic, group, sets, "sink");
    WaitAssigned(sink, 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 300));  // NOLINT
    ASSERT_TRUE(sink.child->Signal(SIGKILL).ok());
    auto status = sink.child->Wait(10s);
    ASSERT_TRUE(status.ok());
    boundaries.push_back(LastSeq());
    // A killed member holds its group until the session times out on the mock broker: go on
    // in a fresh group from the same committed offset and metadata.
    const std::string next = NewGroup();
    CopyCommitted(group, next, topic, 1);
    group = next;
  }
  auto sink = StartSink(topic, group, sets, "sink");
  WaitAssigned(sink, 1);
  ASSERT_TRUE(WaitFor(
      [&] { return Committed(group, topic, 1)[0] == static_cast<int64_t>(messages.size()); }, 60s,
      100ms))
      << Tail(sink);
  StopSink(sink);
  boundaries.push_back(UINT64_MAX);

  const auto journal = Journal();
  size_t applied_total = 0;
  for (size_t b = 0; b + 1 < boundaries.size(); ++b) {
    const auto steps = AppliedSteps(journal, kChains, kSteps, boundaries[b], boundaries[b + 1]);
    for (const auto& [c, seq] : steps) {
      applied_total += seq.size();
      EXPECT_TRUE(std::is_sorted(seq.begin(), seq.end()) &&
                  std::adjacent_find(seq.begin(), seq.end()) == seq.end())
          << "chain " << c << " out of order within process " << b;
    }
  }
  for (int c = 0; c < kChains; ++c) {
    for (int i = 0; i < kSteps; ++i) {
      EXPECT_EQ(Row(RowOf(c, i))->at("short_description"),
                std::to_string(c) + "-" + std::to_string(i));
    }
  }
  const size_t duplicates = applied_total - messages.size();
  std::printf("kill -9 x%d under key ordering: %zu commands, %zu applied again\n", kRounds,
              messages.size(), duplicates);
  RecordProperty("duplicates_after_kill9", static_cast<int>(duplicates));
}

}  // namespace
}  // namespace snowcar::sinkit
