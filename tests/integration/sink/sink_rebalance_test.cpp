// SPDX-License-Identifier: Apache-2.0
// (f) A second sidecar joining the group mid-stream: per-partition order holds and nothing is
// lost (every command applied; each row ends at its last value). A partition paused when a
// rebalance takes it away is fetched again when it comes back.
#include <algorithm>
#include <sstream>

#include "sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

TEST_F(SinkIntegrationTest, ASecondSidecarJoiningKeepsOrderAndLosesNothing) {
  constexpr int kPartitions = 4;
  constexpr int kPerPartition = 30;
  const std::string topic = NewTopic(kPartitions);
  const std::string group = NewGroup();
  // Record i of partition p patches row (p, i): the journal then shows the order.
  auto row_id = [](int p, int i) { return SysId(p * 1000 + i); };
  for (int p = 0; p < kPartitions; ++p) {
    for (int i = 0; i < kPerPartition; ++i) Seed(row_id(p, i), {{"short_description", "start"}});
  }
  emulator().faults().SetLatency({.fixed_ms = 10, .jitter_ms = 10, .scope = {}});

  auto produce = [&](int from, int to) {
    std::vector<testsupport::OutMessage> batch;
    for (int i = from; i < to; ++i) {
      for (int p = 0; p < kPartitions; ++p) {
        batch.push_back(Command(
            row_id(p, i), boost::json::object{{"short_description", "v" + std::to_string(i)}}, p));
      }
    }
    Produce(topic, batch);
  };

  auto first = StartSink(topic, group, {}, "first");
  WaitAssigned(first, kPartitions);
  produce(0, kPerPartition / 2);
  auto second = StartSink(topic, group, {}, "second");
  produce(kPerPartition / 2, kPerPartition);
  ASSERT_TRUE(WaitFor(
      [&] {
        const size_t a = Partitions(first).at("partitions").as_array().size();
        const size_t b = Partitions(second).at("partitions").as_array().size();
        return a + b == kPartitions && a > 0 && b > 0;
      },
      30s, 50ms))
      << "the group never shared the partitions";
  ASSERT_TRUE(WaitFor(
      [&] {
        auto c = Committed(group, topic, kPartitions);
        return std::all_of(c.begin(), c.end(), [](int64_t o) { return o == kPerPartition; });
      },
      60s, 100ms));
  for (int p = 0; p < kPartitions; ++p) {
    for (int i = 0; i < kPerPartition; ++i) {
      EXPECT_EQ(Row(row_id(p, i))->at("short_description"), "v" + std::to_string(i));
    }
  }
  StopSink(second);
  StopSink(first);
  first.child->WaitStreamsDrained(5s);
  second.child->WaitStreamsDrained(5s);
  // How many times each partition was handed to a member, from both sidecars' logs. The group
  // may need several eager rounds before it settles (the mock cluster does, under load), and
  // each round hands the partitions out again.
  auto assignments = [&](int partition) {
    const std::string name = topic + "/" + std::to_string(partition);
    int n = 0;
    for (const auto* sink : {&first, &second}) {
      std::istringstream lines(sink->child->Stderr());
      for (std::string line; std::getline(lines, line);) {
        if (line.find("\"kafka.consumer.assigned\"") == std::string::npos) continue;
        const size_t at = line.find("\"partitions\":\"");
        if (at == std::string::npos) continue;
        std::istringstream list(line.substr(at + 14, line.find('"', at + 14) - at - 14));
        for (std::string tp; std::getline(list, tp, ',');) n += tp == name;
      }
    }
    return n;
  };
  // Per partition, the PATCHes arrived in offset order. After a handover the new owner may
  // apply again what the old one did not get to commit (at-least-once), so a run may restart
  // at an earlier record, but never skip one, and only when the partition changed hands.
  for (int p = 0; p < kPartitions; ++p) {
    int last = -1;
    int restarts = 0;
    for (const auto& e : Journal()) {
      if (e.method != "PATCH") continue;
      int index = -1;
      for (int i = 0; i < kPerPartition; ++i) {
        if (e.target.find(row_id(p, i)) != std::string::npos) index = i;
      }
      if (index < 0) continue;
      EXPECT_LE(index, last + 1) << "partition " << p << " skipped ahead";
      if (index != last + 1) ++restarts;
      last = index;
    }
    EXPECT_EQ(last, kPerPartition - 1);
    const int handed = assignments(p);
    EXPECT_GE(handed, 1) << "partition " << p;
    EXPECT_LE(restarts, handed - 1) << "partition " << p << " was assigned " << handed << " times";
  }
}

// A write waiting out a long Retry-After when a rebalance takes its partition away is
// withdrawn, never sent: the next owner applies v1 and v2, and nothing of the old owner's
// reaches the instance afterwards (it would set the row back to v1).
TEST_F(SinkIntegrationTest, AWriteWaitingOutARetryAfterIsNeverSentAfterARevoke) {
  constexpr int kPartitions = 2;
  constexpr auto kRetryAfter = 15s;
  const std::string topic = NewTopic(kPartitions);
  const std::string group = NewGroup();
  for (int p = 0; p < kPartitions; ++p) Seed(SysId(p), {{"short_description", "start"}});
  emulator().faults().AddRule({.kind = emulator::FaultKind::kRateLimit,
                               .scope = {.method = "PATCH", .path_prefix = ""},
                               .next_n = kPartitions,
                               .retry_after_seconds = kRetryAfter.count()});
  auto first = StartSink(topic, group, {}, "first");
  WaitAssigned(first, kPartitions);
  std::vector<testsupport::OutMessage> v1;
  std::vector<testsupport::OutMessage> v2;
  for (int p = 0; p < kPartitions; ++p) {
    v1.push_back(Command(SysId(p), Desc("v1"), p));
    v2.push_back(Command(SysId(p), Desc("v2"), p));
  }
  Produce(topic, v1);
  // Both v1 PATCHes were answered 429: the client now waits out the Retry-After.
  auto throttled = [&] {
    int n = 0;
    for (const auto& e : Journal()) n += e.method == "PATCH" && e.status == 429;
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return throttled() == kPartitions; }, 30s, 20ms)) << JournalText();
  const auto late_call_due = std::chrono::steady_clock::now() + kRetryAfter;
  Produce(topic, v2);

  // A second member joins: the eager rebalance takes both partitions from the first one.
  auto second = StartSink(topic, group, {}, "second");
  ASSERT_TRUE(WaitFor(
      [&] {
        auto c = Committed(group, topic, kPartitions);
        return std::all_of(c.begin(), c.end(), [](int64_t o) { return o == 2; });
      },
      60s, 100ms))
      << JournalText() << "\n"
      << Tail(first);
  uint64_t mark = 0;
  for (const auto& e : Journal()) mark = std::max(mark, e.seq);
  for (int p = 0; p < kPartitions; ++p) {
    EXPECT_EQ(Row(SysId(p))->at("short_description"), "v2") << "row " << p;
  }
  // Until well past the moment the withdrawn calls would have been sent again, nothing more
  // writes those rows.
  auto late_write = [&] {
    for (const auto& e : Journal()) {
      if (e.seq > mark && e.method == "PATCH") return true;
    }
    return false;
  };
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
      late_call_due + 3s - std::chrono::steady_clock::now());
  EXPECT_FALSE(WaitFor(late_write, std::max(wait, std::chrono::milliseconds(1)), 100ms))
      << "a write of a revoked partition reached the instance after the handover:\n"
      << JournalText();
  for (int p = 0; p < kPartitions; ++p) {
    EXPECT_EQ(Row(SysId(p))->at("short_description"), "v2") << "row " << p;
  }
  StopSink(second);
  StopSink(first);
}

// A lane that pauses its partition (backing off under partition ordering, holding
// snow.sink.ordering.max.held.records under key ordering) and then loses it to a rebalance
// that hands it back to the same member: the new lane must get its records. librdkafka keeps
// a pause across the revocation, so the partition must be resumed when it is assigned again.
class PausedPartitionRebalanceTest : public SinkIntegrationTest,
                                     public ::testing::WithParamInterface<std::string> {};

TEST_P(PausedPartitionRebalanceTest, APausedPartitionHandedBackIsFetchedAgain) {
  const bool keyed = GetParam() == "key";
  constexpr int kPartitions = 2;
  const std::string topic = NewTopic(kPartitions);
  const std::string group = NewGroup();
  // Row (p, i) is patched by record i of partition p. Under key ordering the rows are the
  // keys, and 16 records held (the least max.held.records allows) pause the partition.
  const int held_per_partition = keyed ? 16 : 1;
  auto row = [](int p, int i) { return SysId(p * 100 + i); };
  for (int p = 0; p < kPartitions; ++p) {
    for (int i = 0; i <= held_per_partition; ++i) Seed(row(p, i), {{"short_description", "start"}});
  }
  std::vector<std::string> sets;
  if (keyed) sets = {"snow.sink.ordering=key", "snow.sink.ordering.max.held.records=16"};
  emulator().faults().AddRule({.kind = emulator::FaultKind::kServerError,
                               .scope = {.method = "PATCH", .path_prefix = ""},
                               .share = 1.0,
                               .status = 503});
  auto first = StartSink(topic, group, sets, "first");
  WaitAssigned(first, kPartitions);
  std::vector<testsupport::OutMessage> held;
  for (int p = 0; p < kPartitions; ++p) {
    for (int i = 0; i < held_per_partition; ++i) held.push_back(Command(row(p, i), Desc("old"), p));
  }
  Produce(topic, held);
  auto all_paused = [&](const SinkProcess& sink, size_t n) {
    const auto lanes = Partitions(sink).at("partitions").as_array();
    return lanes.size() == n && std::all_of(lanes.begin(), lanes.end(), [](const auto& l) {
             return l.as_object().at("paused").as_bool();
           });
  };
  ASSERT_TRUE(WaitFor([&] { return all_paused(first, kPartitions); }, 30s, 50ms))
      << boost::json::serialize(Partitions(first));

  // A second member joins (the eager assignor takes every partition back and deals them out
  // again, one stays with the first member), then leaves (the other one comes back).
  auto second = StartSink(topic, group, sets, "second");
  ASSERT_TRUE(WaitFor(
      [&] {
        return Partitions(first).at("partitions").as_array().size() == 1 &&
               Partitions(second).at("partitions").as_array().size() == 1;
      },
      30s, 50ms))
      << "the group never shared the partitions";
  StopSink(second);
  WaitAssigned(first, kPartitions);

  // The instance is back and new commands arrive: every one is applied by the first member.
  emulator().faults().Clear();
  std::vector<testsupport::OutMessage> fresh;
  for (int p = 0; p < kPartitions; ++p) {
    fresh.push_back(Command(row(p, held_per_partition), Desc("new"), p));
  }
  Produce(topic, fresh);
  const int64_t per_partition = held_per_partition + 1;
  const bool applied = WaitFor(
      [&] {
        auto c = Committed(group, topic, kPartitions);
        return std::all_of(c.begin(), c.end(), [&](int64_t o) { return o == per_partition; });
      },
      30s, 100ms);
  EXPECT_TRUE(applied) << "committed " << Committed(group, topic, kPartitions)[0] << ","
                       << Committed(group, topic, kPartitions)[1]
                       << "; lanes: " << boost::json::serialize(Partitions(first)) << "\n"
                       << JournalText();
  for (int p = 0; p < kPartitions; ++p) {
    for (int i = 0; i < held_per_partition; ++i) {
      EXPECT_EQ(Row(row(p, i))->at("short_description"), "old") << "partition " << p;
    }
    EXPECT_EQ(Row(row(p, held_per_partition))->at("short_description"), "new") << "partition " << p;
  }
  StopSink(first);
}

INSTANTIATE_TEST_SUITE_P(Ordering, PausedPartitionRebalanceTest,
                         ::testing::Values("partition", "key"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace snowcar::sinkit
