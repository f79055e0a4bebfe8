// SPDX-License-Identifier: Apache-2.0
// (e) A 503 storm never advances committed offsets; fail / log / ignore with a DLQ give the
// documented committed offsets and DLQ contents.
#include <algorithm>

#include "sink_fixture.h"
#include "snowcar/api/client.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

TEST_F(SinkIntegrationTest, A503StormNeverAdvancesCommittedOffsets) {
  const std::string topic = NewTopic(1);
  const std::string group = NewGroup();
  for (int i = 0; i < 3; ++i) Seed(SysId(i), {{"short_description", "start"}});
  emulator().faults().AddRule({.kind = emulator::FaultKind::kServerError,
                               .scope = {.method = "PATCH", .path_prefix = ""},
                               .share = 1.0,
                               .status = 503});
  auto sink = StartSink(topic, group);
  WaitAssigned(sink, 1);
  Produce(topic, {Command(SysId(0), Desc("a"), 0), Command(SysId(1), Desc("b"), 0),
                  Command(SysId(2), Desc("c"), 0)});
  // The lane retries the first record again and again (3 attempts per try, then a backoff).
  ASSERT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_retries_total") >= 4; }, 30s));
  auto lane = Partitions(sink).at("partitions").as_array()[0].as_object();
  EXPECT_EQ(lane.at("in_flight_offset"), 0);
  EXPECT_EQ(lane.at("stored_offset"), nullptr);
  EXPECT_EQ(lane.at("last_error").at("class"), "RETRIES_EXHAUSTED");
  EXPECT_EQ(Committed(group, topic, 1)[0], -1);
  for (const auto& e : Journal()) {
    EXPECT_NE(e.target.find(SysId(0)), std::string::npos) << "never skipped to " << e.target;
  }
  // The storm ends: everything is applied, in order, and committed.
  emulator().faults().Clear();
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 3; }, 30s, 100ms));
  EXPECT_EQ(Row(SysId(2))->at("short_description"), "c");
  StopSink(sink);
}

// Record 1 of three is refused with 403 under `behavior`; what is committed and dead-lettered.
class ApiErrorsTest : public SinkIntegrationTest {
 protected:
  void Run(const std::string& behavior, int64_t expected_committed) {
    const std::string topic = NewTopic(1);
    const std::string dlq = NewTopic(1);
    const std::string group = NewGroup();
    for (int i = 0; i < 3; ++i) Seed(SysId(i), {{"short_description", "start"}});
    emulator().faults().AddRule(
        {.kind = emulator::FaultKind::kForbidden,
         .scope = {.method = "PATCH",
                   .path_prefix = std::string("/api/now/table/") + kTable + "/" + SysId(1)},
         .next_n = 1000});
    auto sink = StartSink(
        topic, group,
        {"behavior.on.api.errors=" + behavior, "errors.deadletterqueue.topic.name=" + dlq});
    WaitAssigned(sink, 1);
    Produce(topic,
            {Command(SysId(0), Desc("a"), 0), Command(SysId(1), Desc("b"), 0, {{"trace", "t-1"}}),
             Command(SysId(2), Desc("c"), 0)});
    ASSERT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_dlq_records_total") == 1; }, 30s));
    ASSERT_TRUE(
        WaitFor([&] { return Committed(group, topic, 1)[0] == expected_committed; }, 30s, 100ms))
        << "committed " << Committed(group, topic, 1)[0];

    auto dead = ReadTopic(dlq, 1);
    ASSERT_EQ(dead.size(), 1u);
    const auto& d = dead[0];
    EXPECT_EQ(d.key, SysId(1));
    EXPECT_EQ(d.value, boost::json::serialize(Desc("b"))) << "the original value";
    EXPECT_EQ(d.Header("trace"), "t-1") << "the original headers";
    EXPECT_EQ(d.Header("__connect.errors.topic"), topic);
    EXPECT_EQ(d.Header("__connect.errors.partition"), "0");
    EXPECT_EQ(d.Header("__connect.errors.offset"), "1");
    EXPECT_EQ(d.Header("snow.error.class"), "PERMISSION");
    EXPECT_EQ(d.Header("snow.error.http.status"), "403");
    EXPECT_TRUE(d.Header("snow.error.message").has_value());

    EXPECT_EQ(Row(SysId(1))->at("short_description"), "start");
    const bool went_on = behavior != "fail";
    EXPECT_EQ(Row(SysId(2))->at("short_description"), went_on ? "c" : "start");
    api::Client client;
    auto health = client.Get(sink.socket, "/v1/health");
    ASSERT_TRUE(health.ok());
    if (went_on) {
      EXPECT_EQ(health->status, 200) << health->body;
    } else {
      EXPECT_NE(health->body.find("stopped at a failed record"), std::string::npos) << health->body;
      EXPECT_EQ(Partitions(sink).at("partitions").as_array()[0].at("state"), "failed");
    }
    StopSink(sink);
    EXPECT_EQ(Committed(group, topic, 1)[0], expected_committed) << "after the final commit";
  }
};

TEST_F(ApiErrorsTest, FailStopsBeforeTheRefusedRecord) { Run("fail", 1); }
TEST_F(ApiErrorsTest, LogGoesOnPastTheRefusedRecord) { Run("log", 3); }
TEST_F(ApiErrorsTest, IgnoreGoesOnPastTheRefusedRecord) { Run("ignore", 3); }

}  // namespace
}  // namespace snowcar::sinkit
