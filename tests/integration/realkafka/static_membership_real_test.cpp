// SPDX-License-Identifier: Apache-2.0
// Static group membership (KIP-345) on Apache Kafka: what the embedded broker cannot show,
// since librdkafka's mock cluster ignores group.instance.id (docs/testbed.md).
//
// Kafka behaviour proven: a member that rejoins with the group.instance.id of a member that
// died gets that member's partitions back at once, without waiting for the session timeout
// and without a rebalance of the group; a static member that stops (SIGTERM) sends no
// LeaveGroup, so the other members keep their partitions while it restarts.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <set>
#include <string>
#include <vector>

#include "real_kafka.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int kPartitions = 4;
// Far above what a static restart takes, so "well before the session timeout" is a wide
// margin rather than a race with it.
constexpr int kSessionTimeoutMs = 30000;

class StaticMembershipRealKafkaTest : public RealKafkaTest {
 protected:
  void SetUp() override {
    RealKafkaTest::SetUp();
    if (HasFatalFailure()) return;
    topic_ = testsupport::UniqueName("commands");
    group_ = testsupport::UniqueName("sink");
    ASSERT_TRUE(testsupport::CreateTopic(kafka_.Admin(), topic_, kPartitions).ok());
  }

  std::vector<std::string> SinkConfig(const std::string& name) const {
    auto lines = BaseConfig(name);
    lines.insert(lines.end(),
                 {"source.enabled=false", "sink.enabled=true", "snow.sink.topics=" + topic_,
                  "snow.sink.table=incident", "snow.sink.unknown.field.behavior=passthrough",
                  "kafka.bootstrap.servers=" + kafka_.plaintext, "kafka.group.id=" + group_,
                  "kafka.session.timeout.ms=" + std::to_string(kSessionTimeoutMs)});
    return lines;
  }

  // One create command per partition, numbered from `first`.
  void ProduceCreates(int first, int n) {
    std::vector<testsupport::OutMessage> messages;
    for (int i = first; i < first + n; ++i) {
      testsupport::OutMessage m;
      m.value = R"({"short_description":"static )" + std::to_string(i) + R"("})";
      m.partition = i % kPartitions;
      messages.push_back(std::move(m));
    }
    auto r = testsupport::ProduceMessages(kafka_.plaintext, topic_, messages, 30s);
    ASSERT_TRUE(r.ok()) << r.status().message();
  }

  double Applied(const std::string& name) {
    return MetricSum(Get(name, "/metrics"), "snowcar_sink_records_total");
  }

  std::string topic_;
  std::string group_;
};

// The partition numbers a /v1/sink/partitions document lists.
std::set<int64_t> PartitionsOf(const std::string& body) {
  std::set<int64_t> out;
  boost::system::error_code ec;
  const auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object() || !v.as_object().contains("partitions")) return out;
  for (const auto& p : v.as_object().at("partitions").as_array()) {
    out.insert(p.as_object().at("partition").as_int64());
  }
  return out;
}

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_F(StaticMembershipRealKafkaTest,
       KilledSinkRejoinsWithItsPartitionsLongBeforeTheSessionTimeout) {
  const std::vector<std::pair<std::string, std::string>> pod = {{"POD_NAME", "snowcar-real-0"}};
  auto first = StartSidecar("sink", SinkConfig("sink"), pod);
  ASSERT_NE(first, nullptr);
  ProduceCreates(0, 1);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Applied("sink") >= 1; }, 60s)) << first->Stderr();
  ASSERT_TRUE(first->Signal(SIGKILL).ok());
  ASSERT_TRUE(first->Wait(30s).ok());
  ProduceCreates(1, kPartitions);

  const auto restart = Clock::now();
  auto second = StartSidecar("sink", SinkConfig("sink"), pod);
  ASSERT_NE(second, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Applied("sink") >= 1; }, 60s)) << second->Stderr();
  const double seconds = std::chrono::duration<double>(Clock::now() - restart).count();
  // Without static membership the new member waits for the dead one's session to expire
  // (30 s here). A third of it leaves room for a slow start on a loaded machine.
  EXPECT_LT(seconds, kSessionTimeoutMs / 1000.0 / 3) << second->Stderr();
  RecordProperty("restart_to_first_apply_s", std::to_string(seconds));
  // Every command is applied, none lost: 1 before the kill, 4 after. The first may be
  // applied twice (at least once: the kill can fall before its offset was committed).
  ASSERT_TRUE(testsupport::WaitFor([&] { return Descriptions().size() == 1 + kPartitions; }, 60s))
      << IncidentRows();
  ASSERT_TRUE(second->Signal(SIGTERM).ok());
  auto exit = second->Wait(60s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString();
}

TEST_F(StaticMembershipRealKafkaTest, RollingRestartOfOneMemberLeavesTheOtherUntouched) {
  auto a = StartSidecar("a", SinkConfig("a"), {{"POD_NAME", "snowcar-real-a"}});
  auto b = StartSidecar("b", SinkConfig("b"), {{"POD_NAME", "snowcar-real-b"}});
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  // Both members hold partitions: the group is settled. `b`'s log is read by a thread of the
  // test, so the socket can show its partitions before the captured log has the assignment
  // that made them: wait for the line logged after it too, or the counts below start short.
  const auto holds = [&](const std::string& name) {
    return Get(name, "/v1/sink/partitions").find("\"partition\"") != std::string::npos;
  };
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return holds("a") && holds("b") && Count(b->Stderr(), "\"sink.partitions.assigned\"") >= 1;
      },
      60s))
      << a->Stderr() << b->Stderr();
  const std::set<int64_t> b_partitions = PartitionsOf(Get("b", "/v1/sink/partitions"));
  const int b_revoked = Count(b->Stderr(), "\"kafka.consumer.revoked\"");
  const int b_assigned = Count(b->Stderr(), "\"kafka.consumer.assigned\"");

  // The rolling restart of `a`: SIGTERM, wait for it to exit, start it again.
  ASSERT_TRUE(a->Signal(SIGTERM).ok());
  auto exit = a->Wait(60s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString();
  ProduceCreates(0, kPartitions);
  auto a2 = StartSidecar("a", SinkConfig("a"), {{"POD_NAME", "snowcar-real-a"}});
  ASSERT_NE(a2, nullptr);
  ASSERT_TRUE(testsupport::WaitFor([&] { return IncidentRows() == kPartitions; }, 60s))
      << IncidentRows() << a2->Stderr();

  // `b` was never asked to give up or take partitions, and holds the same ones.
  EXPECT_EQ(Count(b->Stderr(), "\"kafka.consumer.revoked\""), b_revoked) << b->Stderr();
  EXPECT_EQ(Count(b->Stderr(), "\"kafka.consumer.assigned\""), b_assigned) << b->Stderr();
  EXPECT_EQ(PartitionsOf(Get("b", "/v1/sink/partitions")), b_partitions);
  for (auto* child : {a2.get(), b.get()}) {
    ASSERT_TRUE(child->Signal(SIGTERM).ok());
    EXPECT_TRUE(child->Wait(60s).ok());
  }
}

}  // namespace
}  // namespace snowcar::realkafka
