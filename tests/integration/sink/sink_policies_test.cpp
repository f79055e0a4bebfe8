// SPDX-License-Identifier: Apache-2.0
// (b) operations and not-found policies, (c) ambiguous creates under each policy, with the
// emulator's apply-then-drop fault (the POST creates its row, the answer never comes).
#include <algorithm>

#include "sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

boost::json::object Fields(std::initializer_list<std::pair<std::string, std::string>> kv) {
  boost::json::object o;
  for (const auto& [k, v] : kv) o[k] = v;
  return o;
}

size_t RowsWith(std::vector<std::map<std::string, std::string>> rows, const std::string& field,
                const std::string& value) {
  return std::count_if(rows.begin(), rows.end(), [&](auto& r) { return r[field] == value; });
}

TEST_F(SinkIntegrationTest, EachOperationReachesTheInstance) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  Seed(SysId(1), {{"short_description", "to patch"}, {"state", "1"}});
  Seed(SysId(2), {{"short_description", "to put"}});
  Seed(SysId(3), {{"short_description", "to delete"}});
  auto sink = StartSink(topic, NewGroup(),
                        {"behavior.on.api.errors=log", "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);
  Produce(topic, {
                     Command(std::nullopt, Fields({{"short_description", "created"}}), 0),
                     Command(SysId(1), Fields({{"short_description", "patched"}}), 0),
                     Command(SysId(2), Fields({{"short_description", "put"}}), 0,
                             {{"snow.operation", "PUT"}}),
                     Command(SysId(3), std::nullopt, 0),
                     Command(SysId(4), Fields({{"short_description", "nobody"}}), 0),
                 });
  ASSERT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_dlq_records_total") == 1; }, 30s));
  auto rows = Rows();
  EXPECT_EQ(RowsWith(rows, "short_description", "created"), 1u);
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "patched");
  EXPECT_EQ(Row(SysId(1))->at("state"), "1") << "PATCH merges";
  EXPECT_EQ(Row(SysId(2))->at("short_description"), "put");
  EXPECT_FALSE(Row(SysId(3)).has_value());
  EXPECT_FALSE(Row(SysId(4)).has_value());
  std::vector<std::string> methods;
  for (const auto& e : Journal()) methods.push_back(e.method);
  EXPECT_EQ(methods, (std::vector<std::string>{"POST", "PATCH", "PUT", "DELETE", "PATCH"}));

  // The PATCH of a missing row went to the DLQ as NOT_FOUND, with its context.
  auto dead = ReadTopic(dlq, 1);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].key, SysId(4));
  EXPECT_EQ(dead[0].Header("snow.error.class"), "NOT_FOUND");
  EXPECT_EQ(dead[0].Header("snow.error.http.status"), "404");
  EXPECT_EQ(dead[0].Header("__connect.errors.topic"), topic);
  EXPECT_EQ(dead[0].Header("__connect.errors.offset"), "4");
  EXPECT_NE(dead[0].Header("snow.error.message")->find("not.found.behavior=fail"),
            std::string::npos);
  StopSink(sink);
}

TEST_F(SinkIntegrationTest, NotFoundCreateMakesTheRowUnderItsSysId) {
  const std::string topic = NewTopic(1);
  auto sink = StartSink(topic, NewGroup(), {"snow.sink.not.found.behavior=create"});
  WaitAssigned(sink, 1);
  Produce(topic, {Command(SysId(7), Fields({{"short_description", "born by patch"}}), 0)});
  ASSERT_TRUE(WaitFor([&] { return Row(SysId(7)).has_value(); }, 30s));
  EXPECT_EQ(Row(SysId(7))->at("short_description"), "born by patch");
  auto j = Journal();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0].status, 404);
  EXPECT_EQ(j[1].method, "POST");
  StopSink(sink);
}

// The next POST is applied and its answer lost: the status line and half the body arrive,
// then the connection closes. (The emulator's apply_then_drop, which sends nothing at all, is
// used by CorrelationLookupAfterASilentlyDroppedPost below: see there why.)
void DropNextPostAnswer(emulator::EmulatorServer& emulator,
                        emulator::FaultKind kind = emulator::FaultKind::kDropMidResponse) {
  emulator.faults().AddRule(
      {.kind = kind, .scope = {.method = "POST", .path_prefix = ""}, .next_n = 1});
}

TEST_F(SinkIntegrationTest, AmbiguousCreateUnderRetryMayDuplicate) {
  const std::string topic = NewTopic(1);
  DropNextPostAnswer(emulator());
  auto sink = StartSink(topic, NewGroup(), {"snow.sink.create.ambiguous.behavior=retry"});
  WaitAssigned(sink, 1);
  Produce(topic, {Command(std::nullopt, Fields({{"short_description", "once?"}}), 0)});
  ASSERT_TRUE(WaitFor(
      [&] { return Metric(sink, "snowcar_sink_records_total{operation=\"create\"}") == 1; }, 30s));
  EXPECT_EQ(RowsWith(Rows(), "short_description", "once?"), 2u)
      << "the first POST was applied; retry posted again";
  StopSink(sink);
}

TEST_F(SinkIntegrationTest, AmbiguousCreateUnderFailAmbiguousStopsTheLane) {
  const std::string topic = NewTopic(1);
  const std::string group = NewGroup();
  DropNextPostAnswer(emulator());
  auto sink = StartSink(topic, group, {"snow.sink.create.ambiguous.behavior=fail_ambiguous"});
  WaitAssigned(sink, 1);
  Produce(topic, {Command(std::nullopt, Fields({{"short_description", "maybe"}}), 0),
                  Command(std::nullopt, Fields({{"short_description", "after"}}), 0)});
  ASSERT_TRUE(WaitFor(
      [&] {
        auto lanes = Partitions(sink).at("partitions").as_array();
        return !lanes.empty() && lanes[0].at("state") == "failed";
      },
      30s));
  auto lane = Partitions(sink).at("partitions").as_array()[0].as_object();
  EXPECT_EQ(lane.at("last_error").at("class"), "AMBIGUOUS");
  EXPECT_EQ(lane.at("in_flight_offset"), 0);
  EXPECT_EQ(Metric(sink, "snowcar_sink_lane_failed{topic=\"" + topic + "\",partition=\"0\"}"), 1);
  EXPECT_EQ(RowsWith(Rows(), "short_description", "maybe"), 1u);
  EXPECT_EQ(RowsWith(Rows(), "short_description", "after"), 0u) << "nothing past the failure";
  StopSink(sink);
  EXPECT_EQ(Committed(group, topic, 1)[0], -1) << "no offset stored past the failed record";
}

TEST_F(SinkIntegrationTest, CorrelationLookupLeavesExactlyOneRow) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  Seed(SysId(50), {{"correlation_id", "twin"}});
  Seed(SysId(51), {{"correlation_id", "twin"}});
  Seed(SysId(52), {{"correlation_id", "y"}, {"short_description", "bystander"}});
  DropNextPostAnswer(emulator());
  auto sink = StartSink(topic, NewGroup(),
                        {"snow.sink.create.ambiguous.behavior=correlation_lookup",
                         "snow.sink.correlation.field=correlation_id", "behavior.on.api.errors=log",
                         "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);
  Produce(
      topic,
      {Command(std::nullopt, Fields({{"correlation_id", "order-1"}, {"short_description", "a"}}),
               0),
       Command(std::nullopt, Fields({{"correlation_id", "twin"}, {"short_description", "b"}}), 0),
       Command(std::nullopt,
               Fields({{"correlation_id", "x^ORsys_id!=y"}, {"short_description", "evil"}}), 0),
       // Redelivered create: found, patched, not duplicated.
       Command(std::nullopt, Fields({{"correlation_id", "order-1"}, {"short_description", "a2"}}),
               0)});
  ASSERT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_dlq_records_total") == 2; }, 30s))
      << Tail(sink);
  ASSERT_TRUE(WaitFor(
      [&] { return Metric(sink, "snowcar_sink_records_total{operation=\"patch\"}") >= 2; }, 30s))
      << JournalText() << Tail(sink);
  auto rows = Rows();
  EXPECT_EQ(RowsWith(rows, "correlation_id", "order-1"), 1u);
  EXPECT_EQ(RowsWith(rows, "short_description", "a2"), 1u);
  EXPECT_EQ(RowsWith(rows, "correlation_id", "twin"), 2u);
  EXPECT_EQ(RowsWith(rows, "short_description", "b"), 0u) << "two matches: no write";
  EXPECT_EQ(Row(SysId(52))->at("short_description"), "bystander");
  EXPECT_EQ(RowsWith(rows, "short_description", "evil"), 0u);
  for (const auto& e : Journal()) {
    EXPECT_EQ(e.target.find("ORsys_id"), std::string::npos) << e.target;
    EXPECT_EQ(e.target.find("%5EOR"), std::string::npos) << e.target;
  }
  auto dead = ReadTopic(dlq, 2);
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_EQ(dead[0].Header("snow.error.class"), "AMBIGUOUS");
  EXPECT_EQ(dead[1].Header("snow.error.class"), "RECORD_ERROR");
  // The cache names the row the first create made.
  const std::string one = [&] {
    for (auto& r : Rows()) {
      if (r["correlation_id"] == "order-1") return r["sys_id"];
    }
    return std::string();
  }();
  testsupport::ChildOptions curl;
  curl.args = {
      "--unix-socket", sink.socket, "-s",
      std::string("http://localhost/v1/sink/correlation/") + kTable + "/correlation_id/order-1"};
  auto answer = testsupport::RunToCompletion("curl", curl, 10s);
  ASSERT_TRUE(answer.ok());
  EXPECT_NE(answer->out.find(one), std::string::npos) << answer->out;
  StopSink(sink);
}

// The unknown-field check end to end. The emulator has no data dictionary of its own, so the
// test writes one: sys_db_object rows for u_ticket and its parent u_base, and sys_dictionary
// rows for their columns.
TEST_F(SinkIntegrationTest, UnknownFieldsAreCheckedAlongTheSuperClassChain) {
  auto& store = emulator().store();
  ASSERT_TRUE(store.CreateTable("sys_db_object").ok());
  ASSERT_TRUE(store.CreateTable("sys_dictionary").ok());
  ASSERT_TRUE(store.Insert("sys_db_object", {{"sys_id", SysId(900)}, {"name", "u_base"}}).ok());
  ASSERT_TRUE(store
                  .Insert("sys_db_object",
                          {{"sys_id", SysId(901)}, {"name", kTable}, {"super_class", SysId(900)}})
                  .ok());
  ASSERT_TRUE(
      store.Insert("sys_dictionary", {{"name", "u_base"}, {"element", "short_description"}}).ok());
  ASSERT_TRUE(store.Insert("sys_dictionary", {{"name", kTable}, {"element", "state"}}).ok());
  ASSERT_TRUE(store.Insert("sys_dictionary", {{"name", "u_other"}, {"element", "u_secret"}}).ok());

  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  auto sink = StartSink(topic, NewGroup(),
                        {"snow.sink.unknown.field.behavior=fail", "behavior.on.api.errors=log",
                         "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);
  Produce(topic,
          {Command(std::nullopt, Fields({{"short_description", "inherited"}, {"state", "2"}}), 0),
           Command(std::nullopt, Fields({{"short_description", "x"}, {"u_secret", "y"}}), 0),
           Command(std::nullopt, Fields({{"state", "3"}}), 0)});
  ASSERT_TRUE(WaitFor(
      [&] { return Metric(sink, "snowcar_sink_records_total{operation=\"create\"}") == 2; }, 30s))
      << JournalText() << Tail(sink);
  ASSERT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_dlq_records_total") == 1; }, 30s));
  EXPECT_EQ(RowsWith(Rows(), "short_description", "inherited"), 1u);
  EXPECT_EQ(RowsWith(Rows(), "short_description", "x"), 0u) << "u_secret is not a u_ticket column";
  auto dead = ReadTopic(dlq, 1);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].Header("snow.error.class"), "RECORD_ERROR");
  EXPECT_NE(dead[0].Header("snow.error.message")->find("u_secret"), std::string::npos);
  // The dictionary was read once (the walk and the columns), not per record; the sink's
  // start-up probe of its rights (one row, no query) is not a column read.
  int dictionary_reads = 0;
  for (const auto& e : Journal()) {
    dictionary_reads += e.target.find("/sys_dictionary?sysparm_query=") != std::string::npos;
  }
  EXPECT_EQ(dictionary_reads, 1) << JournalText();
  StopSink(sink);
}

// correlation_lookup after a POST whose answer never started: the emulator applies the POST
// and closes the connection without a byte. libcurl would silently re-send such a request when
// it went out on a reused keep-alive connection, so the client gives POSTs a fresh connection
// (src/servicenow/curl_transfer.cpp); the sink then sees the ambiguity and looks the row up.
TEST_F(SinkIntegrationTest, CorrelationLookupAfterASilentlyDroppedPost) {
  const std::string topic = NewTopic(1);
  DropNextPostAnswer(emulator(), emulator::FaultKind::kApplyThenDrop);
  auto sink = StartSink(topic, NewGroup(),
                        {"snow.sink.create.ambiguous.behavior=correlation_lookup",
                         "snow.sink.correlation.field=correlation_id"});
  WaitAssigned(sink, 1);
  Produce(topic, {Command(std::nullopt, Fields({{"correlation_id", "silent"}}), 0)});
  ASSERT_TRUE(WaitFor(
      [&] { return Metric(sink, "snowcar_sink_records_total{operation=\"patch\"}") == 1; }, 30s))
      << JournalText();
  EXPECT_EQ(RowsWith(Rows(), "correlation_id", "silent"), 1u) << JournalText();
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
