// SPDX-License-Identifier: Apache-2.0
// The error path as a lane runs it: DLQ and reporter records, acknowledged before the offset
// is reported done, then behavior.on.api.errors.
#include <gtest/gtest.h>

#include "lane_rig.h"
#include "support/fake_table_client.h"

namespace snowcar::sinktest {
namespace {

using namespace std::chrono_literals;

std::optional<std::string> HeaderOf(const kafka::OutRecord& r, const std::string& key) {
  const kafka::Header* h = kafka::FindHeader(r.headers, key);
  return h == nullptr ? std::nullopt : h->value;
}

// Record 1 of 0..2 is refused with 403.
servicenow::CallResult ForbidRow1(const InstanceRequest& r) {
  if (r.target.find(SysId(1)) != std::string::npos) {
    return Fail(OutcomeClass::kPermission, 403, "Operation Failed");
  }
  return Ok({});
}

sink::SinkSettings WithDlq(sink::ApiErrorBehavior behavior) {
  sink::SinkSettings s;
  s.on_api_errors = behavior;
  s.dlq_topic = "cmds.dlq";
  return s;
}

void EnqueueThree(sink::Lane& lane) {
  for (int i = 0; i < 3; ++i) lane.Enqueue(Record("cmds", 0, i, SysId(i), Desc("x")));
}

TEST(LaneErrorPath, FailStopsAtTheRecordAfterItsDlqRecord) {
  testsupport::FakeTableClient client(ForbidRow1);
  LaneRig rig(client, 4, WithDlq(sink::ApiErrorBehavior::kFail));
  auto lane = rig.Lane("cmds", 0);
  EnqueueThree(*lane);
  ASSERT_TRUE(WaitFor([&] { return !rig.Failed().empty(); }, 5s));
  ASSERT_TRUE(WaitFor([&] { return lane->Snapshot().state == sink::LaneState::kFailed; }, 5s));
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{1})) << "nothing past the failed record";
  EXPECT_EQ(client.request_count(), 2u) << "record 2 is never sent";
  EXPECT_EQ(rig.Failed()[0].klass, sink::ErrorClass::kPermission);

  auto dlq = rig.producer().records();
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(dlq[0].topic, "cmds.dlq");
  EXPECT_EQ(dlq[0].key, SysId(1));
  EXPECT_EQ(HeaderOf(dlq[0], "__connect.errors.offset"), "1");
  EXPECT_EQ(HeaderOf(dlq[0], "snow.error.class"), "PERMISSION");
  EXPECT_EQ(HeaderOf(dlq[0], "snow.error.http.status"), "403");

  auto s = lane->Snapshot();
  EXPECT_EQ(s.in_flight_offset, 1) << "the socket shows where the lane stopped";
  EXPECT_EQ(s.last_error_class, "PERMISSION");
  EXPECT_TRUE(s.paused);
  // A failed lane takes no more records.
  lane->Enqueue(Record("cmds", 0, 3, SysId(3), Desc("x")));
  EXPECT_EQ(client.request_count(), 2u);
}

TEST(LaneErrorPath, LogCompletesTheFailedRecordAfterItsDlqRecord) {
  testsupport::FakeTableClient client(ForbidRow1);
  LaneRig rig(client, 4, WithDlq(sink::ApiErrorBehavior::kLog));
  auto lane = rig.Lane("cmds", 0);
  EnqueueThree(*lane);
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 3; }, 5s));
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(rig.producer().records().size(), 1u);
  EXPECT_EQ(rig.metrics().dlq(), 1);
  EXPECT_EQ(lane->Snapshot().last_error_class, "PERMISSION");
  EXPECT_TRUE(rig.Failed().empty());
  // Per partition: the dead-lettered record and the two applied around it.
  std::string metrics;
  rig.metrics().Write(metrics, 0, 0, {{.topic = "cmds", .partition = 0}});
  for (const char* sample :
       {"snowcar_sink_partition_dlq_records_total{topic=\"cmds\",partition=\"0\"} 1",
        "snowcar_sink_partition_records_total{topic=\"cmds\",partition=\"0\"} 2",
        "snowcar_sink_partition_in_flight{topic=\"cmds\",partition=\"0\"} 0"}) {
    EXPECT_NE(metrics.find(sample), std::string::npos) << sample << "\n" << metrics;
  }
}

TEST(LaneErrorPath, IgnoreWithoutDlqCompletesAndProducesNothing) {
  testsupport::FakeTableClient client(ForbidRow1);
  sink::SinkSettings s;
  s.on_api_errors = sink::ApiErrorBehavior::kIgnore;
  LaneRig rig(client, 4, s);
  auto lane = rig.Lane("cmds", 0);
  EnqueueThree(*lane);
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 3; }, 5s));
  EXPECT_TRUE(rig.producer().records().empty());
  EXPECT_EQ(rig.metrics().failures(sink::ErrorClass::kPermission), 1);
}

TEST(LaneErrorPath, OffsetWaitsForTheDlqAcknowledgement) {
  testsupport::FakeTableClient client(ForbidRow1);
  LaneRig rig(client, 4, WithDlq(sink::ApiErrorBehavior::kLog));
  auto lane = rig.HeldLane("cmds", 0);
  EnqueueThree(*lane);
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 1; }, 5s));
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{1}));
  EXPECT_EQ(client.request_count(), 2u) << "the lane waits: record 2 is not sent yet";
  rig.producer().AckAll();
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 3; }, 5s));
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{1, 2, 3}));
}

TEST(LaneErrorPath, AFailedDlqProduceIsRetriedWithoutRewritingTheRow) {
  testsupport::FakeTableClient client(ForbidRow1);
  LaneRig rig(client, 4, WithDlq(sink::ApiErrorBehavior::kLog));
  auto lane = rig.HeldLane("cmds", 0);
  EnqueueThree(*lane);
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 1; }, 5s));
  rig.producer().FailNext();
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 1; }, 5s)) << "produced again";
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{1}));
  rig.producer().AckAll();
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 3; }, 5s));
  EXPECT_EQ(client.request_count(), 3u) << "the refused row was written once";
  EXPECT_EQ(rig.producer().records().size(), 2u);
  EXPECT_EQ(rig.metrics().dlq(), 1);
}

TEST(LaneErrorPath, UndecodableRecordIsARecordErrorWithoutAnyRequest) {
  testsupport::FakeTableClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 4, WithDlq(sink::ApiErrorBehavior::kLog));
  auto lane = rig.Lane("cmds", 0);
  kafka::InRecord bad = Record("cmds", 0, 0, SysId(1), std::nullopt);
  bad.value = "{not json";
  lane->Enqueue(bad);
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
  EXPECT_EQ(client.request_count(), 0u);
  auto dlq = rig.producer().records();
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(HeaderOf(dlq[0], "snow.error.class"), "RECORD_ERROR");
  EXPECT_EQ(dlq[0].value, "{not json") << "the DLQ keeps the original value";
}

TEST(LaneErrorPath, ReporterTopicsGetSuccessAndErrorRecords) {
  testsupport::FakeTableClient client(ForbidRow1);
  sink::SinkSettings s;
  s.on_api_errors = sink::ApiErrorBehavior::kIgnore;
  s.reporter_success_topic = "ok.reports";
  s.reporter_error_topic = "err.reports";
  LaneRig rig(client, 4, s);
  auto lane = rig.Lane("cmds", 0);
  EnqueueThree(*lane);
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 3; }, 5s));
  auto produced = rig.producer().records();
  ASSERT_EQ(produced.size(), 3u);
  EXPECT_EQ(produced[0].topic, "ok.reports");
  EXPECT_EQ(produced[1].topic, "err.reports");
  EXPECT_EQ(produced[2].topic, "ok.reports");
  ASSERT_TRUE(produced[1].value.has_value());
  EXPECT_NE(produced[1].value->find("PERMISSION"), std::string::npos);
}

TEST(LaneErrorPath, SuccessReportIsAwaitedBeforeTheOffset) {
  testsupport::FakeTableClient client([](const InstanceRequest&) { return Ok({}); });
  sink::SinkSettings s;
  s.reporter_success_topic = "ok.reports";
  LaneRig rig(client, 4, s);
  auto lane = rig.HeldLane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(0), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 1; }, 5s));
  EXPECT_TRUE(rig.Completed(0).empty());
  rig.producer().AckAll();
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
}

}  // namespace
}  // namespace snowcar::sinktest
