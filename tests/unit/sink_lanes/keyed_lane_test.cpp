// SPDX-License-Identifier: Apache-2.0
// Key ordering on one partition (KeyedLane): records of one key in offset order, one at a
// time; different keys concurrently up to the in-flight limit; the offset to commit never
// passes a record that is not done, and the records done above it are reported as metadata
// and skipped by a lane seeded with it; a slow key holds at most `max_held` records before
// the partition is paused.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>

#include "lane_rig.h"
#include "sink/lanes/commit_prefix.h"
#include "support/fake_table_client.h"

namespace snowcar::sinktest {
namespace {

using namespace std::chrono_literals;
using servicenow::InstanceRequest;
using servicenow::OutcomeClass;
using testsupport::WaitFor;

std::string Target(int row) { return "/api/now/table/incident/" + SysId(row); }

TEST(KeyedLane, DifferentKeysRunConcurrentlyUpToTheLimit) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 3);
  auto lane = rig.Keyed("cmds", 0);
  for (int i = 0; i < 6; ++i) lane->Enqueue(Record("cmds", 0, i, SysId(i), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return client.held() == 3; }, 5s));
  EXPECT_EQ(lane->Snapshot().active_keys, 6u);
  while (rig.LastProgress() < 6) {
    client.ReleaseAll();
    ASSERT_TRUE(WaitFor([&] { return client.held() > 0 || rig.LastProgress() == 6; }, 5s));
  }
  EXPECT_EQ(rig.limit().max_observed(), 3);
  EXPECT_EQ(client.sent(), 6u);
  EXPECT_EQ(lane->Snapshot().active_keys, 0u) << "a key with nothing held is dropped";
}

TEST(KeyedLane, OneKeyStaysInOffsetOrderOneRequestAtATime) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 8);
  auto lane = rig.Keyed("cmds", 0);
  // Key A at 0, 2, 4; key B at 1, 3.
  for (int i = 0; i < 5; ++i) {
    lane->Enqueue(Record("cmds", 0, i, SysId(i % 2), Desc("step " + std::to_string(i))));
  }
  for (int round = 0; round < 3; ++round) {
    const size_t expect = round < 2 ? 2 : 1;
    ASSERT_TRUE(WaitFor([&] { return client.held() == expect; }, 5s))
        << "round " << round << " held " << client.held() << " sent " << client.sent();
    EXPECT_EQ(client.held(), expect) << "one request per key at a time";
    client.ReleaseNext(expect);  // not ReleaseAll: that would also answer the next ones
  }
  ASSERT_TRUE(WaitFor([&] { return rig.LastProgress() == 5; }, 5s))
      << rig.LastProgress() << " sent " << client.sent() << " held " << client.held();
  std::map<std::string, std::vector<std::string>> per_row;
  for (const auto& r : client.requests())
    per_row[r.target].push_back(BodyField(r, "short_description"));
  EXPECT_EQ(per_row[Target(0)], (std::vector<std::string>{"step 0", "step 2", "step 4"}));
  EXPECT_EQ(per_row[Target(1)], (std::vector<std::string>{"step 1", "step 3"}));
}

TEST(KeyedLane, AFreedSlotGoesToTheOldestWaitingRecord) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 1);  // one permit, two keys at work
  auto lane = rig.Keyed("cmds", 0);
  const std::vector<std::pair<int, std::string>> records = {
      {0, "a0"}, {1, "b1"}, {0, "a2"}, {3, "c3"}, {4, "d4"}};
  auto enqueue = [&](size_t i) {
    lane->Enqueue(Record("cmds", 0, static_cast<int64_t>(i), SysId(records[i].first),
                         Desc(records[i].second)));
  };
  // Each step waits until the permit is held and the other key's request waits for it: which
  // of two handed records asks the permit first is up to the pool, so the test decides it.
  enqueue(0);
  ASSERT_TRUE(WaitFor([&] { return client.held() == 1; }, 5s));
  for (size_t i = 1; i < records.size(); ++i) enqueue(i);
  ASSERT_TRUE(WaitFor([&] { return rig.limit().waiting() == 1; }, 5s)) << "b1 waits";
  // a0 done: the permit goes to b1, and the freed slot to the oldest record that may run, a2
  // (offset 2), ahead of c3 and d4. Handing every record to its key at once would have queued
  // c3 and d4 for the permit before a2.
  client.ReleaseNext(1);
  ASSERT_TRUE(WaitFor([&] { return client.sent() == 2 && rig.limit().waiting() == 1; }, 5s))
      << "sent " << client.sent() << " waiting " << rig.limit().waiting();
  while (rig.LastProgress() < 5) {
    ASSERT_TRUE(WaitFor([&] { return client.held() == 1 || rig.LastProgress() == 5; }, 5s));
    client.ReleaseNext(1);
  }
  std::vector<std::string> sent;
  for (const auto& r : client.requests()) sent.push_back(BodyField(r, "short_description"));
  ASSERT_EQ(sent.size(), records.size());
  EXPECT_EQ(std::vector<std::string>(sent.begin(), sent.begin() + 3),
            (std::vector<std::string>{"a0", "b1", "a2"}))
      << ::testing::PrintToString(sent);
}

TEST(KeyedLane, AHeldKeyBlocksNoOtherKeyAndTheCommitNeverPassesIt) {
  std::atomic<bool> instance_busy{true};
  testsupport::FakeTableClient client([&](const InstanceRequest& r) {
    if (r.target == Target(0) && instance_busy) return Fail(OutcomeClass::kRetryable, 503);
    return Ok({});
  });
  LaneRig rig(client, 4);
  auto lane = rig.Keyed("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 10, SysId(0), Desc("slow")));
  for (int i = 11; i < 20; ++i) lane->Enqueue(Record("cmds", 0, i, SysId(i), Desc("x")));
  lane->Enqueue(Record("cmds", 0, 20, SysId(0), Desc("after slow")));
  // Every other key is applied while key 0 waits.
  ASSERT_TRUE(WaitFor([&] { return client.request_count() >= 9 + 3; }, 5s));
  ASSERT_TRUE(WaitFor(
      [&] {
        const auto p = rig.Progress();
        return !p.empty() &&
               sink::CommitPrefix::ParseMetadata(p.back().first, p.back().second).size() == 9;
      },
      5s));
  auto p = rig.Progress();
  for (const auto& [next, meta] : p) EXPECT_EQ(next, 10) << "the commit stays at the held record";
  EXPECT_EQ(sink::CommitPrefix::ParseMetadata(10, p.back().second),
            (std::set<int64_t>{11, 12, 13, 14, 15, 16, 17, 18, 19}));
  for (const auto& r : client.requests()) {
    EXPECT_NE(BodyField(r, "short_description"), "after slow") << "the key's order holds";
  }
  EXPECT_EQ(lane->Snapshot().last_error_class, "RETRIES_EXHAUSTED");
  EXPECT_EQ(lane->Snapshot().in_flight_offset, 10);
  EXPECT_TRUE(rig.Pauses(0).empty()) << "one waiting key does not pause the partition";

  instance_busy = false;
  ASSERT_TRUE(WaitFor([&] { return rig.LastProgress() == 21; }, 5s));
  EXPECT_EQ(rig.Progress().back().second, "");
  std::vector<std::string> row0;
  for (const auto& r : client.requests()) {
    if (r.target == Target(0)) row0.push_back(BodyField(r, "short_description"));
  }
  ASSERT_GE(row0.size(), 2u);
  EXPECT_EQ(row0.back(), "after slow");
  EXPECT_EQ(row0[row0.size() - 2], "slow");
}

TEST(KeyedLane, APoisonRecordUnderFailStopsItsKeyOnly) {
  testsupport::FakeTableClient client([](const InstanceRequest& r) {
    if (r.target == Target(1)) return Fail(OutcomeClass::kPermission, 403, "Operation Failed");
    return Ok({});
  });
  sink::SinkSettings s;
  s.on_api_errors = sink::ApiErrorBehavior::kFail;
  s.dlq_topic = "cmds.dlq";
  LaneRig rig(client, 4, s);
  auto lane = rig.Keyed("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(0), Desc("a")));
  lane->Enqueue(Record("cmds", 0, 1, SysId(1), Desc("poison")));
  lane->Enqueue(Record("cmds", 0, 2, SysId(2), Desc("b")));
  lane->Enqueue(Record("cmds", 0, 3, SysId(1), Desc("behind the poison")));
  lane->Enqueue(Record("cmds", 0, 4, SysId(4), Desc("c")));
  ASSERT_TRUE(WaitFor([&] { return !rig.Failed().empty(); }, 5s));
  // Keys run side by side, so record 0 may still be in flight when 2 and 4 are done (a
  // progress report at 0 whose metadata lists them): wait for the state every record settles
  // in, the committable offset at the failed record with the two others done past it.
  std::string metadata;
  ASSERT_TRUE(WaitFor(
      [&] {
        const auto p = rig.Progress();
        if (p.empty() || p.back().first != 1) return false;
        metadata = p.back().second;
        return sink::CommitPrefix::ParseMetadata(1, metadata).size() == 2;
      },
      5s))
      << "never past the failed record, with the other keys' records done";
  EXPECT_EQ(sink::CommitPrefix::ParseMetadata(1, metadata), (std::set<int64_t>{2, 4}));
  EXPECT_EQ(rig.producer().records().size(), 1u) << "the failure is dead-lettered once";
  EXPECT_EQ(client.request_count(), 4u) << "the poisoned key's next record is never sent";
  EXPECT_EQ(lane->Snapshot().state, sink::LaneState::kFailed);
  EXPECT_EQ(lane->Snapshot().last_error_class, "PERMISSION");
}

TEST(KeyedLane, ADeadLetteredRecordIsDoneUnderLog) {
  testsupport::FakeTableClient client([](const InstanceRequest& r) {
    if (r.target == Target(1)) return Fail(OutcomeClass::kPermission, 403, "Operation Failed");
    return Ok({});
  });
  sink::SinkSettings s;
  s.on_api_errors = sink::ApiErrorBehavior::kLog;
  s.dlq_topic = "cmds.dlq";
  LaneRig rig(client, 4, s);
  auto lane = rig.Keyed("cmds", 0);
  for (int i = 0; i < 4; ++i) lane->Enqueue(Record("cmds", 0, i, SysId(i % 2), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return rig.LastProgress() == 4; }, 5s));
  EXPECT_EQ(rig.producer().records().size(), 2u);
  EXPECT_TRUE(rig.Failed().empty());
}

TEST(KeyedLane, RecordsTheMetadataListsAreSkipped) {
  testsupport::FakeTableClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 4);
  auto lane = rig.Keyed("cmds", 0);
  // An earlier owner committed 100 and had finished 101 and 103 above it.
  sink::CommitPrefix earlier;
  earlier.Reset(100, "");
  for (int64_t o = 100; o < 104; ++o) earlier.Track(o);
  earlier.MarkDone(101);
  earlier.MarkDone(103);
  lane->Seed(100, earlier.Metadata());
  for (int i = 100; i < 105; ++i) lane->Enqueue(Record("cmds", 0, i, SysId(i), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return rig.LastProgress() == 105; }, 5s));
  std::set<std::string> sent;
  for (const auto& r : client.requests()) sent.insert(r.target);
  EXPECT_EQ(sent, (std::set<std::string>{Target(100), Target(102), Target(104)}));
}

TEST(KeyedLane, ASlowKeyPausesThePartitionAtTheCapAndResumesAtHalf) {
  std::atomic<bool> slow{true};
  testsupport::FakeTableClient client([&](const InstanceRequest& r) {
    if (r.target == Target(0) && slow) return Fail(OutcomeClass::kRetryable, 503);
    return Ok({});
  });
  LaneRig rig(client, 4);
  auto lane = rig.Keyed("cmds", 0, /*max_held=*/8);
  for (int i = 0; i < 12; ++i) lane->Enqueue(Record("cmds", 0, i, SysId(i), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return rig.Pauses(0) == std::vector<bool>{true}; }, 5s));
  EXPECT_TRUE(lane->Snapshot().paused);
  // Records a poll already fetched are still taken; the held count shows them.
  ASSERT_TRUE(WaitFor([&] { return client.request_count() >= 11 + 2; }, 5s));
  EXPECT_EQ(lane->Snapshot().queue_depth, 12u);
  slow = false;
  ASSERT_TRUE(WaitFor([&] { return rig.LastProgress() == 12; }, 5s));
  EXPECT_EQ(rig.Pauses(0), (std::vector<bool>{true, false}));
}

TEST(KeyedLane, AbandonedLaneReportsNothingMore) {
  HoldingClient client([](const InstanceRequest&) { return Ok({}); });
  LaneRig rig(client, 4);
  auto lane = rig.Keyed("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(0), Desc("x")));
  lane->Enqueue(Record("cmds", 0, 1, SysId(1), Desc("y")));
  ASSERT_TRUE(WaitFor([&] { return client.held() == 2; }, 5s));
  EXPECT_TRUE(lane->Busy());
  lane->Abandon();
  client.ReleaseAll();
  ASSERT_TRUE(WaitFor([&] { return !lane->Busy(); }, 5s));
  EXPECT_TRUE(rig.Progress().empty());
  EXPECT_EQ(rig.limit().in_flight(), 0);
}

}  // namespace
}  // namespace snowcar::sinktest
