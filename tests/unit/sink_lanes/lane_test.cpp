// SPDX-License-Identifier: Apache-2.0
// Lanes: order within a partition, one request at a time, concurrency across lanes capped by
// the in-flight limit, retries of the same record, queue-driven pause.
#include <gtest/gtest.h>

#include "lane_rig.h"
#include "support/fake_table_client.h"

namespace snowcar::sinktest {
namespace {

using namespace std::chrono_literals;

TEST(Lane, AppliesOnePartitionInOffsetOrderOneRequestAtATime) {
  HoldingClient client([](const InstanceRequest&) { return Ok({{"sys_id", SysId(1)}}); });
  LaneRig rig(client, 8);
  auto lane = rig.Lane("cmds", 0);
  for (int i = 0; i < 5; ++i) {
    lane->Enqueue(Record("cmds", 0, 100 + i, SysId(i), Desc("v" + std::to_string(i))));
  }
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(WaitFor([&] { return client.held() == 1; }, 5s)) << "record " << i;
    // Only one request of the lane is ever out: the next waits for this answer.
    EXPECT_EQ(client.sent(), static_cast<size_t>(i + 1));
    EXPECT_EQ(lane->Snapshot().in_flight_offset, 100 + i);
    client.ReleaseNext();
    ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == static_cast<size_t>(i + 1); }, 5s));
  }
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{101, 102, 103, 104, 105}));
  auto r = client.requests();
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(r[i].target, "/api/now/table/incident/" + SysId(i));
    EXPECT_EQ(BodyField(r[i], "short_description"), "v" + std::to_string(i));
  }
  EXPECT_EQ(rig.metrics().applied(sink::Operation::kPatch), 5);
  std::string metrics;
  rig.metrics().Write(metrics, 0, 0, {});
  EXPECT_NE(metrics.find("snowcar_sink_partition_records_total{topic=\"cmds\",partition=\"0\"} 5"),
            std::string::npos)
      << metrics;
}

TEST(Lane, TwoUpdatesOfOneRowAreSentInOrder) {
  testsupport::FakeTableClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 8);
  auto lane = rig.Lane("cmds", 0);
  for (int i = 0; i < 50; ++i) {
    lane->Enqueue(Record("cmds", 0, i, SysId(42), Desc("step " + std::to_string(i))));
  }
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 50; }, 5s));
  auto r = client.requests();
  ASSERT_EQ(r.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(BodyField(r[i], "short_description"), "step " + std::to_string(i));
  }
}

TEST(Lane, AnOffsetAlreadyQueuedIsNotAppliedTwice) {
  testsupport::FakeTableClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 8);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 5, SysId(1), Desc("a")));
  lane->Enqueue(Record("cmds", 0, 5, SysId(1), Desc("a again")));
  lane->Enqueue(Record("cmds", 0, 4, SysId(1), Desc("older")));
  lane->Enqueue(Record("cmds", 0, 6, SysId(1), Desc("b")));
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 2; }, 5s));
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(client.request_count(), 2u);
}

TEST(Lane, LanesOverlapButNeverExceedMaxInFlight) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 3);
  std::vector<std::shared_ptr<sink::Lane>> lanes;
  for (int p = 0; p < 6; ++p) {
    lanes.push_back(rig.Lane("cmds", p));
    for (int i = 0; i < 2; ++i) lanes[p]->Enqueue(Record("cmds", p, i, SysId(p), Desc("x")));
  }
  ASSERT_TRUE(WaitFor([&] { return client.held() == 3 && rig.limit().waiting() == 3; }, 5s));
  EXPECT_EQ(client.sent(), 3u) << "three lanes wait for a permit";
  size_t released = 0;
  while (rig.CompletedCount() < 12) {
    ASSERT_LE(client.held(), 3u);
    ASSERT_LE(rig.limit().in_flight(), 3);
    if (client.ReleaseNext() == 0) {
      ASSERT_TRUE(WaitFor([&] { return client.held() > 0 || rig.CompletedCount() == 12; }, 5s));
    } else {
      ++released;
    }
  }
  EXPECT_EQ(released, 12u);
  EXPECT_EQ(rig.limit().max_observed(), 3);
  for (int p = 0; p < 6; ++p) EXPECT_EQ(rig.Completed(p), (std::vector<int64_t>{1, 2}));
}

TEST(Lane, RetriesExhaustedRetriesTheSameRecordAndNeverSkipsIt) {
  std::atomic<int> failures_left{3};
  testsupport::FakeTableClient client([&](const InstanceRequest& r) {
    if (r.target.find(SysId(0)) != std::string::npos && failures_left.fetch_sub(1) > 0) {
      return Fail(OutcomeClass::kRetryable, 503, "Service Unavailable");
    }
    return Ok({});
  });
  LaneRig rig(client, 4);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(0), Desc("first")));
  lane->Enqueue(Record("cmds", 0, 1, SysId(1), Desc("second")));
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 2; }, 5s));
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{1, 2}));
  auto r = client.requests();
  ASSERT_EQ(r.size(), 5u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r[i].target, "/api/now/table/incident/" + SysId(0));
  EXPECT_EQ(r[4].target, "/api/now/table/incident/" + SysId(1));
  EXPECT_EQ(rig.metrics().retries(), 3);
  EXPECT_EQ(rig.metrics().failures(sink::ErrorClass::kRetriesExhausted), 3);
  EXPECT_EQ(lane->Snapshot().retries, 3);
  // Backing off pauses the partition; success resumes it.
  auto pauses = rig.Pauses(0);
  ASSERT_GE(pauses.size(), 2u);
  EXPECT_TRUE(pauses.front());
  EXPECT_FALSE(pauses.back());
  EXPECT_TRUE(rig.producer().records().empty()) << "a retryable failure never goes to the DLQ";
}

TEST(Lane, NothingIsReportedDoneWhileTheRecordKeepsFailing) {
  testsupport::FakeTableClient client(
      [](const InstanceRequest&) { return Fail(OutcomeClass::kRetryable, 503); });
  LaneRig rig(client, 4);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(0), Desc("x")));
  lane->Enqueue(Record("cmds", 0, 1, SysId(1), Desc("y")));
  ASSERT_TRUE(WaitFor([&] { return client.request_count() >= 6; }, 5s));
  EXPECT_TRUE(rig.Completed(0).empty());
  for (const auto& r : client.requests()) {
    EXPECT_EQ(r.target, "/api/now/table/incident/" + SysId(0));
  }
  EXPECT_EQ(lane->Snapshot().last_error_class, "RETRIES_EXHAUSTED");
}

TEST(Lane, AFullQueuePausesThePartitionUntilItDrains) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 4);
  sink::LaneOptions options = LaneRig::Fast();
  options.pause_at = 5;
  options.resume_at = 2;
  auto lane = rig.Lane("cmds", 0, options);
  for (int i = 0; i < 8; ++i) lane->Enqueue(Record("cmds", 0, i, SysId(i), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return client.held() == 1; }, 5s));
  EXPECT_EQ(rig.Pauses(0), (std::vector<bool>{true}));
  EXPECT_TRUE(lane->Snapshot().paused);
  while (rig.Completed(0).size() < 8) {
    client.ReleaseNext();
    ASSERT_TRUE(WaitFor([&] { return client.held() == 1 || rig.Completed(0).size() == 8; }, 5s));
  }
  EXPECT_EQ(rig.Pauses(0), (std::vector<bool>{true, false}));
}

TEST(Lane, StopFinishesTheRecordInFlightAndDropsTheRest) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 4);
  auto lane = rig.Lane("cmds", 0);
  for (int i = 0; i < 3; ++i) lane->Enqueue(Record("cmds", 0, i, SysId(i), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return client.held() == 1; }, 5s));
  lane->Stop();
  EXPECT_TRUE(lane->Busy());
  EXPECT_EQ(lane->Snapshot().state, sink::LaneState::kStopping);
  client.ReleaseAll();
  ASSERT_TRUE(WaitFor([&] { return !lane->Busy(); }, 5s));
  EXPECT_EQ(rig.Completed(0), (std::vector<int64_t>{1}));
  EXPECT_EQ(lane->Snapshot().state, sink::LaneState::kStopped);
  EXPECT_EQ(client.sent(), 1u);
}

TEST(Lane, AbandonedRecordIsNeverReportedDone) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 4);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(0), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return client.held() == 1; }, 5s));
  lane->Abandon();
  client.ReleaseAll();
  ASSERT_TRUE(WaitFor([&] { return !lane->Busy(); }, 5s));
  EXPECT_TRUE(rig.Completed(0).empty());
  EXPECT_EQ(rig.limit().in_flight(), 0);
}

TEST(Lane, DeleteAndCreateAreInferredFromTheRecord) {
  testsupport::FakeTableClient client([](const InstanceRequest& r) {
    return r.method == Method::kPost ? Ok({{"sys_id", SysId(77)}}, 201) : Ok({}, 204);
  });
  LaneRig rig(client, 4);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, std::nullopt, Desc("new")));  // no key: CREATE
  lane->Enqueue(Record("cmds", 0, 1, SysId(5), std::nullopt));     // null value: DELETE
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 2; }, 5s));
  auto r = client.requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].method, Method::kPost);
  EXPECT_EQ(r[1].method, Method::kDelete);
  EXPECT_EQ(r[1].target, "/api/now/table/incident/" + SysId(5));
}

}  // namespace
}  // namespace snowcar::sinktest
