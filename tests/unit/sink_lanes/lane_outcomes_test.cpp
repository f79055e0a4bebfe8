// SPDX-License-Identifier: Apache-2.0
// Failures whose outcome depends on what earlier tries of the same record did: lost answers
// on writes, across the writer's and the lane's own retries, and an error path that runs
// again after a failed produce. Each runs under behavior.on.api.errors=log with a DLQ, where
// a record error would be dead-lettered and its offset stored.
#include <gtest/gtest.h>

#include <atomic>

#include "lane_rig.h"
#include "support/fake_table_client.h"

namespace snowcar::sinktest {
namespace {

using namespace std::chrono_literals;

std::optional<std::string> OutcomeHeader(const kafka::OutRecord& r, const std::string& key) {
  const kafka::Header* h = kafka::FindHeader(r.headers, key);
  return h == nullptr ? std::nullopt : h->value;
}

sink::SinkSettings LogWithDlqSettings() {
  sink::SinkSettings s;
  s.on_api_errors = sink::ApiErrorBehavior::kLog;
  s.dlq_topic = "cmds.dlq";
  return s;
}

std::vector<kafka::OutRecord> OnTopic(const std::vector<kafka::OutRecord>& records,
                                      const std::string& topic) {
  std::vector<kafka::OutRecord> out;
  for (const auto& r : records) {
    if (r.topic == topic) out.push_back(r);
  }
  return out;
}

size_t CountMethod(const std::vector<InstanceRequest>& requests, Method method) {
  return static_cast<size_t>(std::count_if(requests.begin(), requests.end(),
                                           [method](const auto& r) { return r.method == method; }));
}

servicenow::CallResult LostAnswer() {
  return Fail(OutcomeClass::kAmbiguous, 0,
              "request sent but its answer was lost (Server returned nothing); it may or may not "
              "have been applied");
}

// Finding: a PATCH whose connection dropped more often than the client resends it was
// dead-lettered and its offset committed, though it was never applied. It is held instead:
// the lane retries it (as after a 503) until it is applied, and nothing reaches the DLQ.
TEST(LaneOutcomes, LostPatchAnswersHoldTheRecordInsteadOfDeadLetteringIt) {
  for (sink::Operation op : {sink::Operation::kPatch, sink::Operation::kPut}) {
    std::atomic<int> calls{0};
    testsupport::FakeTableClient client([&calls](const InstanceRequest&) {
      return ++calls <= 6 ? LostAnswer() : Ok({{"sys_id", SysId(1)}});
    });
    sink::SinkSettings s = LogWithDlqSettings();
    s.update_method = op;
    LaneRig rig(client, 4, s);
    auto lane = rig.Lane("cmds", 0);
    lane->Enqueue(Record("cmds", 0, 0, SysId(1), Desc("x")));
    ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
    EXPECT_EQ(calls.load(), 7) << "sent until it was answered";
    EXPECT_TRUE(rig.producer().records().empty()) << "nothing dead-lettered";
    EXPECT_EQ(rig.metrics().applied(op), 1);
    EXPECT_EQ(rig.metrics().failures(sink::ErrorClass::kAmbiguous), 0);
    EXPECT_EQ(rig.metrics().failures(sink::ErrorClass::kRetriesExhausted), 6);
  }
}

// While the answers stay lost, the offset never moves.
TEST(LaneOutcomes, LostPatchAnswersNeverCompleteTheRecord) {
  std::atomic<int> calls{0};
  testsupport::FakeTableClient client([&calls](const InstanceRequest&) {
    ++calls;
    return LostAnswer();
  });
  LaneRig rig(client, 4, LogWithDlqSettings());
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(1), Desc("x")));
  lane->Enqueue(Record("cmds", 0, 1, SysId(2), Desc("y")));
  ASSERT_TRUE(WaitFor([&] { return calls.load() >= 10; }, 5s));
  EXPECT_TRUE(rig.Completed(0).empty());
  EXPECT_TRUE(rig.producer().records().empty());
  for (const auto& r : client.requests()) {
    EXPECT_EQ(r.target, "/api/now/table/incident/" + SysId(1)) << "the next record waits";
  }
  EXPECT_EQ(lane->Snapshot().last_error_class, "RETRIES_EXHAUSTED");
}

// Creates under ambiguous.behavior=retry, at most 3 POSTs whose answer was lost, then the DLQ.
sink::SinkSettings RetryCreateThreeTimes() {
  sink::SinkSettings s = LogWithDlqSettings();
  s.ambiguous_create = sink::AmbiguousCreateBehavior::kRetry;
  s.max_ambiguous_posts = 3;
  return s;
}

// Finding: ambiguous.behavior=retry re-POSTed without end (41 rows for one command). At most
// snow.retry.max.attempts POSTs whose answer was lost, counted across the lane's own retries
// too, then the record fails as AMBIGUOUS and is dead-lettered once.
TEST(LaneOutcomes, RetryCreateSendsAtMostMaxAttemptsPostsThenFailsAmbiguous) {
  testsupport::FakeTableClient client([](const InstanceRequest&) { return LostAnswer(); });
  LaneRig rig(client, 4, RetryCreateThreeTimes());
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, std::nullopt, Desc("new")));
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
  EXPECT_EQ(CountMethod(client.requests(), Method::kPost), 3u);
  EXPECT_EQ(client.request_count(), 3u);
  auto dlq = OnTopic(rig.producer().records(), "cmds.dlq");
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(OutcomeHeader(dlq[0], "snow.error.class"), "AMBIGUOUS");
  EXPECT_EQ(OutcomeHeader(dlq[0], "snow.error.attempts"), "3");
}

// The bound holds when the lane itself retries the record in between (a 503 storm that
// outlasts the client after the first lost answer): the count survives the lane's retry.
TEST(LaneOutcomes, RetryCreateBoundSurvivesLaneRetries) {
  std::atomic<int> calls{0};
  testsupport::FakeTableClient client([&calls](const InstanceRequest&) {
    // lost, 503 (exhausted: the lane retries), lost, 503, lost, ...
    return ++calls % 2 == 1 ? LostAnswer() : Fail(OutcomeClass::kRetryable, 503, "busy");
  });
  LaneRig rig(client, 4, RetryCreateThreeTimes());
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, std::nullopt, Desc("new")));
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
  EXPECT_EQ(calls.load(), 5) << "three lost POSTs and the two 503s between them";
  auto dlq = OnTopic(rig.producer().records(), "cmds.dlq");
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(OutcomeHeader(dlq[0], "snow.error.class"), "AMBIGUOUS");
}

// Finding: a DELETE whose answers were lost more often than one try resends it was retried
// by the lane, and the 404 of that later try (the row was gone: an earlier DELETE removed
// it) was taken as NOT_FOUND. "Sent before" now survives the lane's retries.
TEST(LaneOutcomes, DeleteAnswering404AfterLostAnswersOfEarlierLaneTriesIsSuccess) {
  std::atomic<int> calls{0};
  testsupport::FakeTableClient client([&calls](const InstanceRequest&) {
    return ++calls <= 5 ? LostAnswer() : Fail(OutcomeClass::kNotFound, 404, "No Record found");
  });
  sink::SinkSettings s = LogWithDlqSettings();
  s.not_found = sink::NotFoundBehavior::kFail;
  LaneRig rig(client, 4, s);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(3), std::nullopt));
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
  EXPECT_EQ(calls.load(), 6);
  EXPECT_GE(rig.metrics().failures(sink::ErrorClass::kRetriesExhausted), 1)
      << "the lane retried the record in between";
  EXPECT_TRUE(rig.producer().records().empty()) << "not dead-lettered as NOT_FOUND";
  EXPECT_EQ(rig.metrics().applied(sink::Operation::kDelete), 1);
  EXPECT_EQ(rig.metrics().failures(sink::ErrorClass::kNotFound), 0);
}

// ... and it is per record: the next record's first 404 follows not.found.behavior again.
TEST(LaneOutcomes, SentBeforeDoesNotCarryOverToTheNextRecord) {
  std::atomic<int> calls{0};
  testsupport::FakeTableClient client([&calls](const InstanceRequest&) {
    return ++calls == 1 ? LostAnswer() : Fail(OutcomeClass::kNotFound, 404, "No Record found");
  });
  sink::SinkSettings s = LogWithDlqSettings();
  s.not_found = sink::NotFoundBehavior::kFail;
  LaneRig rig(client, 4, s);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, SysId(3), std::nullopt));
  lane->Enqueue(Record("cmds", 0, 1, SysId(4), std::nullopt));
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 2; }, 5s));
  auto dlq = OnTopic(rig.producer().records(), "cmds.dlq");
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(dlq[0].key, SysId(4));
  EXPECT_EQ(OutcomeHeader(dlq[0], "snow.error.class"), "NOT_FOUND");
}

servicenow::CallResult RefusedWith403(const InstanceRequest&) {
  return Fail(OutcomeClass::kPermission, 403, "Operation Failed");
}

// A refused record goes to the DLQ (cmds.dlq) and is reported on err.reports.
sink::SinkSettings DlqAndReportSettings() {
  sink::SinkSettings s = LogWithDlqSettings();
  s.reporter_error_topic = "err.reports";
  return s;
}

// One command (sys_id 1) on the lane of cmds/0 that the instance refuses with a 403: its DLQ
// record and its error report wait in the producer until the test answers them.
struct RefusedAndHeld {
  RefusedAndHeld() { lane->Enqueue(Record("cmds", 0, 0, SysId(1), Desc("x"))); }
  testsupport::FakeTableClient client{RefusedWith403};
  LaneRig rig{client, 4, DlqAndReportSettings()};
  std::shared_ptr<sink::Lane> lane = rig.HeldLane("cmds", 0);
};

// Finding: when the error report's produce failed, the whole error path ran again and the
// DLQ got the same record twice. Each failure reaches each topic once.
TEST(LaneOutcomes, DlqRecordIsProducedOnceWhenTheErrorReportMustBeProducedAgain) {
  RefusedAndHeld refused;
  LaneRig& rig = refused.rig;
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 2; }, 5s));
  ASSERT_EQ(rig.producer().AckNext(), 1u);   // the DLQ record
  ASSERT_EQ(rig.producer().FailNext(), 1u);  // the error report
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 1; }, 5s)) << "produced again";
  EXPECT_TRUE(rig.Completed(0).empty()) << "the offset waits for the report";
  rig.producer().AckAll();
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
  auto produced = rig.producer().records();
  EXPECT_EQ(OnTopic(produced, "cmds.dlq").size(), 1u);
  EXPECT_EQ(OnTopic(produced, "err.reports").size(), 2u) << "the failed one and its resend";
  EXPECT_EQ(OnTopic(rig.producer().acknowledged(), "err.reports").size(), 1u);
  EXPECT_EQ(rig.metrics().dlq(), 1);
  EXPECT_EQ(refused.client.request_count(), 1u);
}

// The other way round: the report was acknowledged, the DLQ record was not.
TEST(LaneOutcomes, ErrorReportIsProducedOnceWhenTheDlqRecordMustBeProducedAgain) {
  RefusedAndHeld refused;
  LaneRig& rig = refused.rig;
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 2; }, 5s));
  ASSERT_EQ(rig.producer().FailNext(), 1u);  // the DLQ record
  ASSERT_EQ(rig.producer().AckNext(), 1u);   // the error report
  ASSERT_TRUE(WaitFor([&] { return rig.producer().held() == 1; }, 5s)) << "produced again";
  rig.producer().AckAll();
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
  auto acked = rig.producer().acknowledged();
  EXPECT_EQ(OnTopic(acked, "cmds.dlq").size(), 1u);
  EXPECT_EQ(OnTopic(acked, "err.reports").size(), 1u);
  EXPECT_EQ(OnTopic(rig.producer().records(), "err.reports").size(), 1u);
  EXPECT_EQ(rig.metrics().dlq(), 1);
}

// Finding: a Retry-After longer than the client's elapsed budget was forgotten once the call
// gave up; the lane then retried on its own backoff (here 1 ms). It waits at least what the
// instance asked, even past its own cap, and the socket view shows the wait.
TEST(LaneOutcomes, HeldRecordWaitsTheInstancesRetryAfterAndShowsIt) {
  std::mutex mu;
  std::vector<std::chrono::steady_clock::time_point> sent;
  testsupport::FakeTableClient client([&](const InstanceRequest&) {
    std::lock_guard lock(mu);
    sent.push_back(std::chrono::steady_clock::now());
    if (sent.size() > 1) return Ok({{"sys_id", SysId(1)}});
    servicenow::CallResult r = Fail(OutcomeClass::kRetryable, 429, "Too many requests");
    r.response.retry_after_ms = 400;
    return r;
  });
  LaneRig rig(client, 4, LogWithDlqSettings());
  auto lane = rig.Lane("cmds", 0);  // its own backoff: 1 ms, capped at 8 ms
  lane->Enqueue(Record("cmds", 0, 0, SysId(1), Desc("x")));
  ASSERT_TRUE(WaitFor([&] { return lane->Snapshot().backoff_ms > 0; }, 5s));
  EXPECT_EQ(lane->Snapshot().backoff_ms, 400);
  EXPECT_EQ(lane->Snapshot().last_error_class, "RETRIES_EXHAUSTED");
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
  EXPECT_EQ(lane->Snapshot().backoff_ms, 0);
  std::lock_guard lock(mu);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_GE(sent[1] - sent[0], 390ms);
}

}  // namespace
}  // namespace snowcar::sinktest
