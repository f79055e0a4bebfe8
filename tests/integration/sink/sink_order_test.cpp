// SPDX-License-Identifier: Apache-2.0
// (a) Ordering and concurrency: per-partition order holds while lanes overlap, and requests in
// flight never exceed snow.sink.max.in.flight, also while the instance answers 429.
#include <algorithm>

#include "sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

// Index of the row a journal target addresses (-1 when none of `ids`).
int RowIndex(const std::string& target, const std::vector<std::string>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (target.find(ids[i]) != std::string::npos) return static_cast<int>(i);
  }
  return -1;
}

TEST_F(SinkIntegrationTest, PerPartitionOrderHoldsWhileLanesOverlap) {
  constexpr int kPartitions = 4;
  constexpr int kPerPartition = 12;
  const std::string topic = NewTopic(kPartitions);
  const std::string group = NewGroup();
  // Row (p, i) for every command, plus one row per partition that every command of the
  // partition patches: two updates of one sys_id on one partition must land in order.
  std::vector<std::vector<std::string>> ids(kPartitions);
  for (int p = 0; p < kPartitions; ++p) {
    Seed(SysId(1000 + p), {{"short_description", "start"}});
    for (int i = 0; i < kPerPartition; ++i) {
      ids[p].push_back(SysId(p * 100 + i));
      Seed(ids[p].back(), {{"short_description", "start"}});
    }
  }
  emulator().faults().SetLatency(
      {.fixed_ms = 20, .jitter_ms = 10, .scope = {.method = "PATCH", .path_prefix = ""}});

  auto sink = StartSink(topic, group, {"snow.sink.max.in.flight=3"});
  WaitAssigned(sink, kPartitions);
  std::vector<testsupport::OutMessage> messages;
  for (int i = 0; i < kPerPartition; ++i) {
    for (int p = 0; p < kPartitions; ++p) {
      messages.push_back(
          Command(ids[p][i], Desc("p" + std::to_string(p) + "-" + std::to_string(i)), p));
      messages.push_back(Command(SysId(1000 + p), Desc("step " + std::to_string(i)), p));
    }
  }
  Produce(topic, messages);

  ASSERT_TRUE(WaitApplied(sink, "patch", messages.size()));
  for (int p = 0; p < kPartitions; ++p) {
    EXPECT_EQ(Row(SysId(1000 + p))->at("short_description"),
              "step " + std::to_string(kPerPartition - 1));
    EXPECT_EQ(Row(SysId(1000 + p))->at("sys_mod_count"), std::to_string(kPerPartition));
    for (int i = 0; i < kPerPartition; ++i) {
      EXPECT_EQ(Row(ids[p][i])->at("short_description"),
                "p" + std::to_string(p) + "-" + std::to_string(i));
    }
  }
  // The journal, in arrival order: each partition's rows were patched in offset order.
  std::vector<int> last(kPartitions, -1);
  for (const auto& e : Journal()) {
    if (e.method != "PATCH") continue;
    for (int p = 0; p < kPartitions; ++p) {
      const int i = RowIndex(e.target, ids[p]);
      if (i < 0) continue;
      EXPECT_EQ(i, last[p] + 1) << "partition " << p << " out of order";
      last[p] = i;
    }
  }
  // Lanes overlapped, and never beyond the limit.
  const int64_t max_seen = Metric(sink, "snowcar_sink_in_flight_max");
  EXPECT_GE(max_seen, 2);
  EXPECT_LE(max_seen, 3);
  // Everything done is committed.
  ASSERT_TRUE(WaitFor(
      [&] {
        auto c = Committed(group, topic, kPartitions);
        return std::all_of(c.begin(), c.end(),
                           [&](int64_t o) { return o == int64_t{2} * kPerPartition; });
      },
      10s, 100ms));
  StopSink(sink);
}

TEST_F(SinkIntegrationTest, A429StormNeverPushesInFlightPastTheLimit) {
  constexpr int kPartitions = 4;
  const std::string topic = NewTopic(kPartitions);
  const std::string group = NewGroup();
  for (int p = 0; p < kPartitions; ++p) Seed(SysId(p), {{"short_description", "start"}});
  emulator().faults().SetLatency({.fixed_ms = 10, .jitter_ms = 10, .scope = {}});
  emulator().faults().AddRule({.kind = emulator::FaultKind::kRateLimit,
                               .scope = {.method = "PATCH", .path_prefix = ""},
                               .share = 0.3,
                               .retry_after_seconds = 1});
  auto sink = StartSink(topic, group,
                        {"snow.sink.max.in.flight=2", "snow.retry.max.attempts=10",
                         "snow.retry.max.elapsed.ms=60000"});
  WaitAssigned(sink, kPartitions);
  std::vector<testsupport::OutMessage> messages;
  for (int i = 0; i < 6; ++i) {
    for (int p = 0; p < kPartitions; ++p) {
      messages.push_back(Command(SysId(p), Desc("v" + std::to_string(i)), p));
    }
  }
  Produce(topic, messages);
  ASSERT_TRUE(WaitApplied(sink, "patch", messages.size()));
  int throttled = 0;
  for (const auto& e : Journal()) throttled += e.status == 429;
  EXPECT_GT(throttled, 0) << "the storm happened";
  EXPECT_LE(Metric(sink, "snowcar_sink_in_flight_max"), 2);
  for (int p = 0; p < kPartitions; ++p) EXPECT_EQ(Row(SysId(p))->at("short_description"), "v5");
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
