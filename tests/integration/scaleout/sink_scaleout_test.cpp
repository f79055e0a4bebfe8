// SPDX-License-Identifier: Apache-2.0
// Scale-out of the sink (docs/scale-out.md): two `snowcar run` sidecars with the same
// kafka.group.id share a 4-partition command topic. Both get partitions, both apply commands,
// every command is applied exactly once, and when one replica is stopped (SIGTERM, as a pod
// eviction does) the other takes over every partition and applies the rest.
//
// The commands are CREATEs, each with its own correlation id: a command applied twice would
// leave two rows with the same id, so "exactly once" is read straight off the table. The
// default create policy (fail_ambiguous) never looks a create up, so nothing hides a repeat.
#include <signal.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "integration/sink/sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

constexpr int kPartitions = 4;
constexpr int kPerPartition = 10;  // per batch

class SinkScaleOutTest : public SinkIntegrationTest {
 protected:
  // One CREATE per partition and index; batch b uses indexes [b*k, (b+1)*k).
  std::vector<std::string> ProduceCreates(const std::string& topic, int batch) {
    std::vector<testsupport::OutMessage> messages;
    std::vector<std::string> ids;
    for (int i = batch * kPerPartition; i < (batch + 1) * kPerPartition; ++i) {
      for (int p = 0; p < kPartitions; ++p) {
        const std::string corr = "scale-" + std::to_string(p) + "-" + std::to_string(i);
        ids.push_back(corr);
        messages.push_back(Command(
            std::nullopt,
            boost::json::object{{"correlation_id", corr}, {"short_description", "created " + corr}},
            p));
      }
    }
    Produce(topic, messages);
    return ids;
  }

  // correlation id -> number of rows carrying it.
  std::map<std::string, int> RowsPerCorrelation() {
    std::map<std::string, int> seen;
    for (auto& row : Rows()) {
      if (!row["correlation_id"].empty()) ++seen[row["correlation_id"]];
    }
    return seen;
  }

  size_t Lanes(const SinkProcess& sink) {
    return Partitions(sink).at("partitions").as_array().size();
  }

  int64_t Creates(const SinkProcess& sink) {
    return Metric(sink, "snowcar_sink_records_total{operation=\"create\"}");
  }
};

TEST_F(SinkScaleOutTest, TwoReplicasShareTheGroupAndOneTakesOverWhenTheOtherStops) {
  const std::string topic = NewTopic(kPartitions);
  const std::string group = NewGroup();
  // A little latency so both replicas are busy at the same time.
  emulator().faults().SetLatency({.fixed_ms = 5, .jitter_ms = 5, .scope = {}});

  auto a = StartSink(topic, group, {}, "replica-a");
  auto b = StartSink(topic, group, {}, "replica-b");
  ASSERT_NE(a.child, nullptr);
  ASSERT_NE(b.child, nullptr);
  // The group spreads the partitions over both replicas.
  ASSERT_TRUE(WaitFor(
      [&] {
        const size_t la = Lanes(a);
        const size_t lb = Lanes(b);
        return la + lb == kPartitions && la > 0 && lb > 0;
      },
      45s, 50ms))
      << "a: " << boost::json::serialize(Partitions(a))
      << "\nb: " << boost::json::serialize(Partitions(b)) << "\n"
      << Tail(a) << Tail(b);

  std::vector<std::string> expected = ProduceCreates(topic, 0);
  ASSERT_TRUE(WaitFor(
      [&] {
        auto c = Committed(group, topic, kPartitions);
        return std::all_of(c.begin(), c.end(), [](int64_t o) { return o == kPerPartition; });
      },
      60s, 100ms))
      << JournalText();
  // Both replicas did part of the work, and together exactly all of it.
  const int64_t by_a = Creates(a);
  const int64_t by_b = Creates(b);
  EXPECT_GT(by_a, 0);
  EXPECT_GT(by_b, 0);
  EXPECT_EQ(by_a + by_b, kPartitions * kPerPartition);

  // Replica a leaves (a pod eviction sends SIGTERM): it drains, commits and leaves the group;
  // b is handed every partition and applies what arrives next.
  StopSink(a);
  ASSERT_TRUE(WaitFor([&] { return Lanes(b) == kPartitions; }, 45s, 50ms))
      << boost::json::serialize(Partitions(b)) << "\n"
      << Tail(b);
  const std::vector<std::string> second = ProduceCreates(topic, 1);
  expected.insert(expected.end(), second.begin(), second.end());
  ASSERT_TRUE(WaitFor(
      [&] {
        auto c = Committed(group, topic, kPartitions);
        return std::all_of(c.begin(), c.end(),
                           [](int64_t o) { return o == int64_t{2} * kPerPartition; });
      },
      60s, 100ms))
      << boost::json::serialize(Partitions(b)) << "\n"
      << Tail(b);
  EXPECT_EQ(Creates(b), by_b + int64_t{kPartitions} * kPerPartition);

  // Every command became exactly one row.
  const auto seen = RowsPerCorrelation();
  for (const auto& corr : expected) {
    auto it = seen.find(corr);
    EXPECT_TRUE(it != seen.end() && it->second == 1)
        << corr << " applied " << (it == seen.end() ? 0 : it->second) << " times";
  }
  EXPECT_EQ(seen.size(), expected.size());
  StopSink(b);
}

}  // namespace
}  // namespace snowcar::sinkit
