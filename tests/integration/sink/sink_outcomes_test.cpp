// SPDX-License-Identifier: Apache-2.0
// Lost answers on writes against the emulator's apply_then_drop fault (the request takes
// effect, the connection closes with no answer), under behavior.on.api.errors=log with a DLQ:
// where a record error would be dead-lettered and its offset committed. The fixture runs the
// sink with snow.retry.max.attempts=3.
#include <algorithm>

#include "sink_fixture.h"
#include "snowcar/api/client.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

void DropAnswers(emulator::EmulatorServer& emulator, const std::string& method, int64_t n) {
  emulator.faults().AddRule({.kind = emulator::FaultKind::kApplyThenDrop,
                             .scope = {.method = method, .path_prefix = ""},
                             .next_n = n});
}

size_t JournalCount(const std::vector<emulator::JournalEntry>& journal, const std::string& method) {
  return static_cast<size_t>(std::count_if(journal.begin(), journal.end(),
                                           [&](const auto& e) { return e.method == method; }));
}

std::vector<std::string> LogWithDlq(const std::string& dlq) {
  return {"behavior.on.api.errors=log", "errors.deadletterqueue.topic.name=" + dlq};
}

// A PATCH whose answer is lost more often than the client resends it is held by the lane (as
// a 503 is), not dead-lettered: no offset is committed while the answers stay lost, and the
// record is applied and committed once they come back.
TEST_F(SinkIntegrationTest, LostPatchAnswersHoldTheLaneInsteadOfDeadLettering) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(1), {{"short_description", "start"}});
  DropAnswers(emulator(), "PATCH", 1000);
  auto sink = StartSink(topic, group, LogWithDlq(dlq));
  WaitAssigned(sink, 1);
  Produce(topic, {Command(SysId(1), Desc("patched"), 0), Command(SysId(1), Desc("after"), 0)});
  // Two lane retries: each try is 3 PATCHes (the client's attempts), all answers lost.
  ASSERT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_retries_total") >= 2; }, 30s))
      << Tail(sink);
  EXPECT_GE(JournalCount(Journal(), "PATCH"), 6u);
  auto lane = Partitions(sink).at("partitions").as_array()[0].as_object();
  EXPECT_EQ(lane.at("in_flight_offset"), 0);
  EXPECT_EQ(lane.at("last_error").at("class"), "RETRIES_EXHAUSTED");
  EXPECT_EQ(Committed(group, topic, 1)[0], -1);
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);

  emulator().faults().Clear();
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 2; }, 30s, 100ms));
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "after");
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  StopSink(sink);
}

// ambiguous.behavior=retry re-POSTs a create whose answer was lost at most
// snow.retry.max.attempts times in all, then the record fails as AMBIGUOUS: one DLQ record,
// offset committed, and no more rows than POSTs.
TEST_F(SinkIntegrationTest, RetryCreateIsBoundedByMaxAttempts) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  DropAnswers(emulator(), "POST", 40);
  std::vector<std::string> sets = LogWithDlq(dlq);
  sets.push_back("snow.sink.create.ambiguous.behavior=retry");
  auto sink = StartSink(topic, group, sets);
  WaitAssigned(sink, 1);
  Produce(topic, {Command(std::nullopt, Desc("lost"), 0)});
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 1; }, 30s, 100ms))
      << Tail(sink);
  EXPECT_EQ(JournalCount(Journal(), "POST"), 3u);
  const auto rows = Rows();
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(),
                          [](auto r) { return r["short_description"] == "lost"; }),
            3);
  auto dead = ReadTopic(dlq, 1);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].Header("snow.error.class"), "AMBIGUOUS");
  EXPECT_EQ(dead[0].Header("snow.error.attempts"), "3");
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 1);
  StopSink(sink);
}

// A DELETE whose answers were lost through a whole try (the writer resends it 5 times) is
// retried by the lane; the row is gone by then, and that 404 is success, not NOT_FOUND.
TEST_F(SinkIntegrationTest, DeleteAnswering404AfterLostAnswersIsSuccess) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(3), {{"short_description", "doomed"}});
  DropAnswers(emulator(), "DELETE", 5);
  auto sink = StartSink(topic, group, LogWithDlq(dlq));
  WaitAssigned(sink, 1);
  Produce(topic, {Command(SysId(3), std::nullopt, 0)});
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 1; }, 30s, 100ms))
      << Tail(sink);
  EXPECT_FALSE(Row(SysId(3)).has_value());
  const auto journal = Journal();
  EXPECT_EQ(JournalCount(journal, "DELETE"), 6u) << JournalText();
  EXPECT_EQ(journal.back().status, 404);
  EXPECT_GE(Metric(sink, "snowcar_sink_retries_total"), 1) << "the lane retried the record";
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  EXPECT_EQ(Metric(sink, "snowcar_sink_records_total{operation=\"delete\"}"), 1);
  StopSink(sink);
}

// An instance drops query terms on fields it does not know and answers as if they were not
// there (the emulator does the same). With a correlation field the table lacks, the lookup
// answers some other row: it does not carry the value, so it is not patched; the record
// fails as AMBIGUOUS and nothing is written.
TEST_F(SinkIntegrationTest, LookupRowWithoutTheCorrelationValueIsNotPatched) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(60), {{"short_description", "stranger"}});
  std::vector<std::string> sets = LogWithDlq(dlq);
  sets.push_back("snow.sink.create.ambiguous.behavior=correlation_lookup");
  sets.push_back("snow.sink.correlation.field=u_order_ref");
  auto sink = StartSink(topic, group, sets);
  WaitAssigned(sink, 1);
  boost::json::object value{{"u_order_ref", "ORD-1"}, {"short_description", "mine"}};
  Produce(topic, {Command(std::nullopt, value, 0)});
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 1; }, 30s, 100ms))
      << Tail(sink);
  EXPECT_EQ(Row(SysId(60))->at("short_description"), "stranger");
  EXPECT_EQ(Rows().size(), 1u);
  const auto journal = Journal();
  ASSERT_EQ(journal.size(), 1u) << JournalText();
  EXPECT_EQ(journal[0].method, "GET");
  EXPECT_NE(journal[0].target.find("sysparm_fields=sys_id%2Cu_order_ref"), std::string::npos);
  auto dead = ReadTopic(dlq, 1);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].Header("snow.error.class"), "AMBIGUOUS");
  StopSink(sink);
}

// Credentials the instance refuses even with a fresh login concern the instance, not the
// command (docs/outcomes.md, "401 after refresh": pause). Nothing is dead-lettered and no
// offset moves while they are refused; health names the cause once; the same sink state with
// the right password applies the command.
TEST_F(SinkIntegrationTest, RefusedCredentialsPauseTheLaneInsteadOfDeadLettering) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(1), {{"short_description", "start"}});
  std::vector<std::string> sets = LogWithDlq(dlq);
  sets.push_back("snow.auth.password=not-the-password");
  auto sink = StartSink(topic, group, sets);
  WaitAssigned(sink, 1);
  Produce(topic, {Command(SysId(1), Desc("patched"), 0)});
  // The lane waits at the instance's gate (its probes keep being refused).
  ASSERT_TRUE(WaitFor(
      [&] {
        auto lanes = Partitions(sink).at("partitions").as_array();
        return Metric(sink, "snowcar_sink_retries_total") >= 1 && lanes.size() == 1 &&
               lanes[0].as_object().at("last_error").is_object();
      },
      30s))
      << Tail(sink);
  auto lane = Partitions(sink).at("partitions").as_array()[0].as_object();
  EXPECT_EQ(lane.at("in_flight_offset"), 0);
  EXPECT_EQ(lane.at("last_error").at("class"), "INSTANCE_UNAVAILABLE");
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  auto health = api::Client().Get(sink.socket, "/v1/health");
  ASSERT_TRUE(health.ok());
  EXPECT_NE(health->body.find("credentials refused"), std::string::npos) << health->body;
  StopSink(sink);
  EXPECT_EQ(Committed(group, topic, 1)[0], -1) << "no offset over the unapplied write";
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "start");

  auto fixed = StartSink(topic, group, LogWithDlq(dlq));
  WaitAssigned(fixed, 1);
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 1; }, 30s, 100ms))
      << Tail(fixed);
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "patched");
  EXPECT_EQ(Metric(fixed, "snowcar_sink_dlq_records_total"), 0);
  StopSink(fixed);
}

// One instance, one pause: when the instance refuses everyone (here: the credentials, even
// after a fresh login), the first call that finds out closes the instance's gate. Every lane
// and the source table then wait at it: while it is closed the instance sees nothing from
// them but ONE probe at a time (a GET of one row), nothing is dead-lettered, no offset moves,
// and health says why under `servicenow`. The first answer opens the gate and everything
// resumes at once.
TEST_F(SinkIntegrationTest, AnInstanceThatRefusesEveryonePausesEveryLaneAndTableAtOnce) {
  const std::string topic = NewTopic(3);
  const std::string dlq = NewTopic(1);
  const std::string rows_topic = NewTopic(1);
  const std::string group = NewGroup();
  for (int i = 1; i <= 3; ++i) Seed(SysId(i), {{"short_description", "start"}});
  std::vector<std::string> sets = LogWithDlq(dlq);
  sets.insert(sets.end(),
              {"source.enabled=true", "snow.tables=t", std::string("snow.table.t.name=") + kTable,
               "snow.table.t.topic=" + rows_topic, "snow.source.poll.interval.ms=100"});
  auto sink = StartSink(topic, group, sets);
  WaitAssigned(sink, 3);
  api::Client api;
  const auto health = [&] {
    auto r = api.Get(sink.socket, "/v1/health");
    return r.ok() ? r->body : std::string();
  };
  ASSERT_TRUE(WaitFor([&] { return health().find("\"source.t\"") != std::string::npos; }, 20s))
      << health();

  // Every request is refused as unauthenticated from now on.
  emulator::FaultRule refuse;
  refuse.kind = emulator::FaultKind::kAnswer;
  refuse.status = 401;
  refuse.body = R"({"error":{"message":"User Not Authenticated"},"status":"failure"})";
  refuse.next_n = 1000000;
  emulator().faults().AddRule(refuse);
  Produce(topic, {Command(SysId(1), Desc("one"), 0), Command(SysId(2), Desc("two"), 1),
                  Command(SysId(3), Desc("three"), 2)});

  const auto all_paused = [&] {
    auto lanes = Partitions(sink).at("partitions").as_array();
    if (lanes.size() != 3) return false;
    for (const auto& l : lanes) {
      const auto& lane = l.as_object();
      if (!lane.contains("last_error") || !lane.at("last_error").is_object() ||
          lane.at("last_error").at("class") != "INSTANCE_UNAVAILABLE") {
        return false;
      }
    }
    return health().find("credentials refused") != std::string::npos;
  };
  ASSERT_TRUE(WaitFor(all_paused, 30s)) << boost::json::serialize(Partitions(sink)) << health();

  // While the gate is closed, only its probe reaches the instance: watch a few of them.
  const std::string probe =
      std::string("/api/now/table/") + kTable + "?sysparm_limit=1&sysparm_fields=sys_id";
  const size_t from = Journal().size();
  ASSERT_TRUE(WaitFor([&] { return Journal().size() >= from + 4; }, 20s)) << JournalText();
  const auto journal = Journal();
  for (size_t i = from; i < journal.size(); ++i) {
    EXPECT_EQ(journal[i].method + " " + journal[i].target, "GET " + probe)
        << "entry " << i << " of\n"
        << JournalText();
  }
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  EXPECT_EQ(Committed(group, topic, 3), (std::vector<int64_t>{-1, -1, -1}));

  // The instance answers again: one answer opens the gate, everything resumes.
  emulator().faults().Clear();
  ASSERT_TRUE(WaitFor(
      [&] {
        return Committed(group, topic, 3) == std::vector<int64_t>{1, 1, 1};
      },
      30s, 100ms))
      << Tail(sink);
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "one");
  EXPECT_EQ(Row(SysId(2))->at("short_description"), "two");
  EXPECT_EQ(Row(SysId(3))->at("short_description"), "three");
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  ASSERT_TRUE(
      WaitFor([&] { return health().find("credentials refused") == std::string::npos; }, 20s))
      << health();
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
