// SPDX-License-Identifier: Apache-2.0
// KafkaConsumer against the embedded broker: records with headers, manual offset storage,
// pause/resume, rebalances with a second member, Wake.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "consumer_helpers.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::kafka {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::PollUntil;
using testing::TestConsumerOptions;
using testsupport::UniqueName;
using testsupport::WaitFor;

class Consumer : public testsupport::SharedBrokerTest<Consumer> {
 protected:
  std::string NewTopic(int partitions) {
    std::string topic = UniqueName("consume");
    EXPECT_TRUE(broker().CreateTopic(topic, partitions).ok());
    return topic;
  }

  // key-i / value-i / header seq=i for i in [first, first+n), all to `partition`.
  void Produce(const std::string& topic, int partition, int first, int n) {
    auto messages = testsupport::NumberedMessages(first, n);
    for (auto& m : messages) m.partition = partition;
    auto reports = testsupport::ProduceMessages(bootstrap(), topic, messages, seconds(10));
    ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  }

  std::unique_ptr<KafkaConsumer> Make(ConsumerOptions options) {
    auto c = KafkaConsumer::Create(std::move(options));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(*c) : nullptr;
  }
};

// The lowest offset read of each partition in `got`.
std::map<TopicPartition, int64_t> LowestOffsets(const std::vector<InRecord>& got) {
  std::map<TopicPartition, int64_t> lowest;
  for (const InRecord& r : got) {
    auto [it, fresh] = lowest.try_emplace({r.topic, r.partition}, r.offset);
    if (!fresh) it->second = std::min(it->second, r.offset);
  }
  return lowest;
}

TEST_F(Consumer, DeliversRecordsWithKeysHeadersAndTimestamps) {
  const std::string topic = NewTopic(1);
  testsupport::OutMessage m;
  m.key = "sys-1";
  m.value = "{}";
  m.headers = {{"snow.operation", "create"}, {"snow.table", "incident"}};
  m.timestamp_ms = 1'600'000'000'000;
  ASSERT_TRUE(testsupport::ProduceMessages(bootstrap(), topic, {m, m}, seconds(10)).ok());

  auto c = Make(TestConsumerOptions(bootstrap(), UniqueName("g"), {topic}));
  ASSERT_NE(c, nullptr);
  std::vector<InRecord> got;
  ASSERT_TRUE(PollUntil(
      *c, got, [&] { return got.size() >= 2; }, seconds(20)));
  EXPECT_EQ(got[0].topic, topic);
  EXPECT_EQ(got[0].partition, 0);
  EXPECT_EQ(got[0].offset, 0);
  EXPECT_EQ(got[1].offset, 1);
  EXPECT_EQ(got[0].key, "sys-1");
  EXPECT_EQ(got[0].value, "{}");
  EXPECT_EQ(got[0].timestamp_ms, 1'600'000'000'000);
  const Headers want = {{"snow.operation", "create"}, {"snow.table", "incident"}};
  EXPECT_EQ(got[0].headers, want);
  ASSERT_NE(FindHeader(got[0].headers, "snow.table"), nullptr);
  EXPECT_EQ(c->stats().consumed, 2);
  EXPECT_EQ(c->Assignment(), (std::vector<TopicPartition>{{topic, 0}}));
  c->Close();
  EXPECT_FALSE(c->Poll(milliseconds(10)).ok());
  EXPECT_TRUE(c->Assignment().empty());
  c->Close();  // idempotent
}

TEST_F(Consumer, NextMemberResumesAfterTheStoredOffsetNotAfterWhatWasPolled) {
  const std::string topic = NewTopic(1);
  const std::string group = UniqueName("g");
  Produce(topic, 0, 0, 10);
  {
    // No auto-commit: only CommitSync and the commit on Close may move the group's offset.
    auto a =
        Make(TestConsumerOptions(bootstrap(), group, {topic}, {{"enable.auto.commit", "false"}}));
    ASSERT_NE(a, nullptr);
    std::vector<InRecord> got;
    ASSERT_TRUE(PollUntil(
        *a, got, [&] { return got.size() >= 10; }, seconds(20)));
    // Records 0 and 1 are done: the sink stores 2, the next offset to read, and commits.
    ASSERT_TRUE(a->StoreOffset({topic, 0}, 2).ok());
    ASSERT_TRUE(a->CommitSync().ok());
    auto committed = a->Committed({{topic, 0}}, seconds(5));
    ASSERT_TRUE(committed.ok()) << committed.status().ToString();
    EXPECT_EQ(committed->at({topic, 0}), 2);
    // Then 2 and 3 complete; Close commits what is stored (4), not what was polled (10).
    ASSERT_TRUE(a->StoreOffset({topic, 0}, 4).ok());
    a->Close();
  }
  auto b = Make(TestConsumerOptions(bootstrap(), group, {topic}));
  ASSERT_NE(b, nullptr);
  std::vector<InRecord> got;
  ASSERT_TRUE(PollUntil(
      *b, got, [&] { return got.size() >= 6; }, seconds(30)));
  EXPECT_EQ(got.front().offset, 4);  // 4..9 polled by the first member but never stored
  EXPECT_EQ(got.back().offset, 9);
  EXPECT_EQ(got.front().key, "key-4");
  EXPECT_EQ(got.size(), 6u);
}

TEST_F(Consumer, StoreOffsetForAPartitionNotAssignedFails) {
  const std::string topic = NewTopic(1);
  auto c = Make(TestConsumerOptions(bootstrap(), UniqueName("g"), {topic}));
  ASSERT_NE(c, nullptr);
  const Status s = c->StoreOffset({"not-mine", 0}, 3);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("not-mine/0"), std::string::npos) << s.message();
  EXPECT_EQ(c->StoreOffset({topic, 0}, -5).code(), StatusCode::kInvalidArgument);
}

TEST_F(Consumer, PauseHoldsOnePartitionWhileTheOtherFlowsAndResumeContinues) {
  const std::string topic = NewTopic(2);
  auto c = Make(TestConsumerOptions(bootstrap(), UniqueName("g"), {topic}));
  ASSERT_NE(c, nullptr);
  std::vector<InRecord> got;
  ASSERT_TRUE(PollUntil(
      *c, got, [&] { return c->Assignment().size() == 2; }, seconds(20)));
  ASSERT_TRUE(c->Pause({{topic, 0}}).ok());
  Produce(topic, 0, 0, 5);
  Produce(topic, 1, 100, 5);
  auto count = [&](int32_t p) {
    return std::count_if(got.begin(), got.end(),
                         [&](const InRecord& r) { return r.partition == p; });
  };
  ASSERT_TRUE(PollUntil(
      *c, got, [&] { return count(1) >= 5; }, seconds(10)));
  // Partition 1 flowed; give partition 0 the same chance to (wrongly) deliver something.
  PollUntil(
      *c, got, [] { return false; }, milliseconds(700));
  EXPECT_EQ(count(0), 0);
  ASSERT_TRUE(c->Resume({{topic, 0}}).ok());
  ASSERT_TRUE(PollUntil(
      *c, got, [&] { return count(0) >= 5; }, seconds(10)));
  EXPECT_EQ(count(0), 5);
  EXPECT_EQ(count(1), 5);
  EXPECT_EQ(c->Pause({{"not-mine", 0}}).code(), StatusCode::kFailedPrecondition);
}

// Resume seeks to the consumer's position (to wake librdkafka's fetcher): the records after
// the pause come from the one after the last record Poll returned, none skipped, none twice,
// although the pause dropped everything fetched ahead.
TEST_F(Consumer, ResumeGoesOnFromTheRecordAfterTheLastOnePolled) {
  const std::string topic = NewTopic(1);
  Produce(topic, 0, 0, 200);
  auto c = Make(TestConsumerOptions(bootstrap(), UniqueName("g"), {topic}));
  ASSERT_NE(c, nullptr);
  std::vector<int64_t> offsets;
  for (int round = 0; round < 3; ++round) {
    // Take 30 records one Poll at a time (the rest of the 200 sit fetched ahead), then pause.
    const size_t stop_at = offsets.size() + 30;
    ASSERT_TRUE(WaitFor(
        [&] {
          auto r = c->Poll(milliseconds(100));
          if (r.ok() && r->has_value()) offsets.push_back((*r)->offset);
          return offsets.size() >= stop_at;
        },
        seconds(20), milliseconds(0)));
    ASSERT_TRUE(c->Pause({{topic, 0}}).ok());
    std::vector<InRecord> while_paused;
    PollUntil(
        *c, while_paused, [] { return false; }, milliseconds(300));
    EXPECT_TRUE(while_paused.empty())
        << "a paused partition delivered offset " << while_paused.front().offset;
    ASSERT_TRUE(c->Resume({{topic, 0}}).ok());
  }
  std::vector<InRecord> rest;
  ASSERT_TRUE(PollUntil(
      *c, rest, [&] { return offsets.size() + rest.size() >= 200; }, seconds(20)));
  for (const auto& r : rest) offsets.push_back(r.offset);
  ASSERT_EQ(offsets.size(), 200u);
  for (size_t i = 0; i < offsets.size(); ++i) {
    ASSERT_EQ(offsets[i], static_cast<int64_t>(i)) << "record " << i;
  }
}

TEST_F(Consumer, WakeReturnsABlockedPollEarly) {
  const std::string topic = NewTopic(1);
  auto c = Make(TestConsumerOptions(bootstrap(), UniqueName("g"), {topic}));
  ASSERT_NE(c, nullptr);
  std::atomic<bool> started{false};
  auto poll = std::async(std::launch::async, [&] {
    started = true;
    return c->Poll(seconds(60));
  });
  ASSERT_TRUE(WaitFor([&] { return started.load(); }, seconds(5)));
  // Keep waking until the poll returns: a wake that lands before Poll blocks is consumed
  // by the next poll anyway, so one Wake suffices; repeating only guards the test's timing.
  ASSERT_TRUE(WaitFor(
      [&] {
        c->Wake();
        return poll.wait_for(milliseconds(0)) == std::future_status::ready;
      },
      seconds(10), milliseconds(200)));
  auto r = poll.get();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->has_value());
}

// A second member joins: the first gives up partitions (listener first, then the commit of
// what it stored), the second starts from those committed offsets. Run for both protocols.
class ConsumerRebalance : public testsupport::SharedBrokerTest<ConsumerRebalance>,
                          public ::testing::WithParamInterface<std::string> {};

TEST_P(ConsumerRebalance, SecondMemberTriggersRevokeAndStoredOffsetsAreCommitted) {
  if (GetParam() == "cooperative-sticky" && rd_kafka_version() < 0x020300ff) {
    // On the mock cluster with 2.0.2 the process still aborts now and then (1 run in 20 with
    // KafkaConsumer::Close's rule for members that never got an assignment) in
    // rd_kafka_cgrp_terminated ("rdkafka_cgrp.c:2583: assert:
    // !rd_kafka_assignment_in_progress") as the first member closes right after the second
    // closed; the mock refuses the revoke commits with REBALANCE_IN_PROGRESS for 5 s first.
    // That is one reason the consumer defaults to eager assignment (consumer_conf.cpp).
    // cooperative-sticky is tested on Apache Kafka instead (cooperative_abort_real_test.cpp,
    // and the cooperative scale-out test in realkafka/).
    GTEST_SKIP() << "cooperative rebalancing needs librdkafka >= 2.3.0; this is "
                 << rd_kafka_version_str();
  }
  constexpr int kPartitions = 4;
  constexpr int kPerPartition = 10;
  constexpr int64_t kStored = 6;
  const std::string topic = UniqueName("rebalance");
  ASSERT_TRUE(broker().CreateTopic(topic, kPartitions).ok());
  std::vector<testsupport::OutMessage> messages;
  for (int p = 0; p < kPartitions; ++p) {
    for (auto& m : testsupport::NumberedMessages(p * 100, kPerPartition)) {
      m.partition = p;
      messages.push_back(std::move(m));
    }
  }
  ASSERT_TRUE(testsupport::ProduceMessages(bootstrap(), topic, messages, seconds(10)).ok());
  const std::string group = UniqueName("g");
  const std::map<std::string, std::string> props = {{"partition.assignment.strategy", GetParam()},
                                                    {"enable.auto.commit", "false"}};

  struct Events {
    std::vector<TopicPartition> assigned, revoked, lost;
    std::vector<std::string> order;
  } a_events, b_events;
  KafkaConsumer* a_ptr = nullptr;
  std::vector<Status> stores_in_revoke;
  ConsumerOptions a_options = TestConsumerOptions(bootstrap(), group, {topic}, props);
  a_options.listener.on_assigned = [&](const std::vector<TopicPartition>& tps) {
    a_events.assigned.insert(a_events.assigned.end(), tps.begin(), tps.end());
    a_events.order.push_back("assigned");
  };
  a_options.listener.on_revoked = [&](const std::vector<TopicPartition>& tps) {
    a_events.revoked.insert(a_events.revoked.end(), tps.begin(), tps.end());
    a_events.order.push_back("revoked");
    // The sink finishes in-flight work here and stores its offsets: they must be committed.
    for (const auto& tp : tps) stores_in_revoke.push_back(a_ptr->StoreOffset(tp, kStored));
  };
  a_options.listener.on_lost = [&](const std::vector<TopicPartition>& tps) {
    a_events.lost.insert(a_events.lost.end(), tps.begin(), tps.end());
  };
  auto a_result = KafkaConsumer::Create(std::move(a_options));
  ASSERT_TRUE(a_result.ok()) << a_result.status().ToString();
  auto a = std::move(*a_result);
  a_ptr = a.get();

  std::vector<InRecord> a_got;
  ASSERT_TRUE(PollUntil(
      *a, a_got, [&] { return a_got.size() >= static_cast<size_t>(kPartitions) * kPerPartition; },
      seconds(30)));
  EXPECT_EQ(a_events.assigned.size(), static_cast<size_t>(kPartitions));
  // Before the rebalance, store 3 for every partition (the revoke listener will raise it).
  for (int p = 0; p < kPartitions; ++p) ASSERT_TRUE(a->StoreOffset({topic, p}, 3).ok());

  ConsumerOptions b_options = TestConsumerOptions(bootstrap(), group, {topic}, props);
  b_options.listener.on_assigned = [&](const std::vector<TopicPartition>& tps) {
    b_events.assigned.insert(b_events.assigned.end(), tps.begin(), tps.end());
  };
  auto b_result = KafkaConsumer::Create(std::move(b_options));
  ASSERT_TRUE(b_result.ok()) << b_result.status().ToString();
  auto b = std::move(*b_result);

  // Both members must be polled for the rebalance to complete; alternate on this thread.
  std::vector<InRecord> b_got;
  const auto deadline = std::chrono::steady_clock::now() + seconds(45);
  while (std::chrono::steady_clock::now() < deadline &&
         (b->Assignment().empty() ||
          a->Assignment().size() + b->Assignment().size() != static_cast<size_t>(kPartitions))) {
    for (auto* c : {a.get(), b.get()}) {
      auto r = c->Poll(milliseconds(50));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (r->has_value()) (c == a.get() ? a_got : b_got).push_back(std::move(**r));
    }
  }
  ASSERT_FALSE(b->Assignment().empty()) << "the second member never got partitions";
  ASSERT_FALSE(a_events.revoked.empty());
  EXPECT_TRUE(a_events.lost.empty());
  for (const Status& s : stores_in_revoke) EXPECT_TRUE(s.ok()) << s.ToString();

  // Every partition the second member now owns was revoked from the first.
  const std::vector<TopicPartition> moved = b->Assignment();
  std::set<TopicPartition> revoked(a_events.revoked.begin(), a_events.revoked.end());
  for (const auto& tp : moved) EXPECT_TRUE(revoked.contains(tp)) << tp.ToString();
  auto committed = b->Committed(moved, seconds(5));
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  // True once the second member has read every moved partition to its last record: where it
  // starts depends on what was committed, so a count of records would not say it is done.
  auto b_read_to_end = [&] {
    std::map<TopicPartition, int64_t> last;
    for (const InRecord& r : b_got) {
      auto& l = last[{r.topic, r.partition}];
      l = std::max(l, r.offset);
    }
    for (const auto& tp : moved) {
      if (!last.contains(tp) || last.at(tp) < kPerPartition - 1) return false;
    }
    return true;
  };

  if (GetParam() == "cooperative-sticky") {
    // Incremental: the first member kept the partitions it was not asked to give up...
    EXPECT_EQ(a->Assignment().size() + moved.size(), static_cast<size_t>(kPartitions));
    EXPECT_FALSE(a->Assignment().empty());
    if (a->stats().commit_failures == 0) {
      // ...and the offsets stored inside the revoke listener were committed before they moved,
      for (const auto& tp : moved) EXPECT_EQ(committed->at(tp), kStored) << tp.ToString();
      // so the second member starts reading exactly there.
      ASSERT_TRUE(PollUntil(
          *b, b_got,
          [&] {
            return b_got.size() >= moved.size() * static_cast<size_t>(kPerPartition - kStored);
          },
          seconds(20)));
      for (const InRecord& r : b_got) {
        EXPECT_GE(r.offset, kStored) << r.topic << "/" << r.partition;
      }
    } else {
      // The 2.0.2 mock sometimes answers the revoke commit with REBALANCE_IN_PROGRESS when the
      // second member's join overlaps it (seen under CI load; Apache Kafka accepts commits of
      // the current generation then). What must still hold is the safe side: nothing past the
      // stored offset was committed, so the new owner re-reads the work instead of skipping it.
      for (const auto& tp : moved) EXPECT_LE(committed->at(tp), kStored) << tp.ToString();
      ASSERT_TRUE(PollUntil(*b, b_got, b_read_to_end, seconds(20)));
      const std::map<TopicPartition, int64_t> first = LowestOffsets(b_got);
      for (const auto& tp : moved) {
        ASSERT_TRUE(first.contains(tp)) << tp.ToString();
        EXPECT_LE(first.at(tp), kStored) << tp.ToString();
      }
    }
  } else {
    // Eager. The mock cluster does not settle the group in one fixed sequence: under load it
    // answers the revoke commit with REBALANCE_IN_PROGRESS (Apache Kafka accepts commits of
    // the current generation then), and the members may go through several eager rebalances
    // before both are stable, each revoking A's whole assignment again. So this asserts what
    // holds under every interleaving, not one exact event count:
    // - an eager rebalance revokes the whole assignment, so every partition the first member
    //   held was revoked at least once (how often depends on how many rounds the group took);
    std::set<TopicPartition> revoked_once(a_events.revoked.begin(), a_events.revoked.end());
    EXPECT_EQ(revoked_once.size(), static_cast<size_t>(kPartitions));
    // - in the end every partition is owned exactly once;
    std::set<TopicPartition> owned;
    for (const auto& tp : a->Assignment()) EXPECT_TRUE(owned.insert(tp).second) << tp.ToString();
    for (const auto& tp : moved) EXPECT_TRUE(owned.insert(tp).second) << tp.ToString();
    EXPECT_EQ(owned.size(), static_cast<size_t>(kPartitions));
    // - nothing past the offset stored in the revoke listener was committed: either that
    //   commit went through (exactly kStored) or none did (the group has no offset);
    for (const auto& tp : moved) {
      const int64_t c = committed->at(tp);
      EXPECT_TRUE(c == kStored || c == RD_KAFKA_OFFSET_INVALID) << tp.ToString() << " " << c;
    }
    // - so the new owner starts at or before the stored offset and never skips work.
    ASSERT_TRUE(PollUntil(*b, b_got, b_read_to_end, seconds(20)));
    const std::map<TopicPartition, int64_t> first = LowestOffsets(b_got);
    for (const auto& tp : moved) {
      ASSERT_TRUE(first.contains(tp)) << tp.ToString();
      // Not "== kStored when committed": after several rebalances the second member may have
      // read a partition from the start under an earlier generation, before a later revoke
      // commit of the first member went through.
      EXPECT_LE(first.at(tp), kStored) << tp.ToString();
    }
  }
  b->Close();
  a->Close();
}

INSTANTIATE_TEST_SUITE_P(Protocols, ConsumerRebalance,
                         ::testing::Values("cooperative-sticky", "range"), [](const auto& info) {
                           return info.param == "range" ? std::string("Eager")
                                                        : std::string("Cooperative");
                         });

}  // namespace
}  // namespace snowcar::kafka
