// SPDX-License-Identifier: Apache-2.0
// Every sink cell of the outcome matrix (docs/outcomes.md), driven through the real writer,
// lane and error path under behavior.on.api.errors = fail, log and ignore. Each failure of the
// catalogue is classified by the real classifier (what the client hands back once its own
// attempts are over) and answered to every request of the cell's kind; the test then watches
// what the lane does and checks it is the action the decision table states:
//   success       the offset is stored, nothing is dead-lettered;
//   hold / pause  the lane waits and retries the same record (class RETRIES_EXHAUSTED or
//                 PRODUCE / INSTANCE_UNAVAILABLE), stores nothing, dead-letters nothing, and
//                 completes it by itself once the instance answers again;
//   record error  exactly one DLQ record; `fail` stops the lane at the record, `log` and
//                 `ignore` store its offset.
// The policy actions end in one of these: re-POST -> record error after max POSTs, lookup
// again -> success (the lost POST made the row, the lookup finds it and PATCHes it),
// not.found policy (fail) -> record error, re-DELETE -> hold.
#include <gtest/gtest.h>

#include <atomic>

#include "lane_rig.h"
#include "outcome_end.h"
#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/state/state_store.h"
#include "support/fake_table_client.h"
#include "support/temp_dir.h"

namespace snowcar::sinktest {
namespace {

using namespace std::chrono_literals;
using servicenow::Action;
using servicenow::CallPurpose;
using servicenow::CallResult;
using servicenow::FailureCase;
using servicenow::InstanceRequest;
using servicenow::Method;
using servicenow::OutcomeClass;
using testsupport::FakeProducer;
using testsupport::WaitFor;

size_t MatrixCount(const std::vector<InstanceRequest>& requests, Method method) {
  return static_cast<size_t>(std::count_if(requests.begin(), requests.end(),
                                           [method](const auto& r) { return r.method == method; }));
}

bool IsLookupRequest(const InstanceRequest& r) {
  return r.method == Method::kGet && r.target.find("sysparm_query=") != std::string::npos;
}

class OutcomeMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = state::StateStore::Open({.dir = dir_.File("state")});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  void RunCell(const FailureCase& failure, CallPurpose purpose, sink::ApiErrorBehavior behavior);

  testsupport::TempDir dir_{"outcome-matrix"};
  std::unique_ptr<state::StateStore> store_;
  int cell_ = 0;
};

void OutcomeMatrix::RunCell(const FailureCase& failure, CallPurpose purpose,
                            sink::ApiErrorBehavior behavior) {
  const servicenow::Outcome outcome = servicenow::OutcomeOf(failure, purpose);
  const End expected = EndOf(outcome.action);
  const std::string value = "CORR-" + std::to_string(++cell_);  // a fresh cache entry per cell

  // Shared with the fake: it may still be called by the lane's last retry at teardown.
  struct Shared {
    CallResult failing;
    Method method = Method::kGet;
    bool fails = true;
    std::atomic<bool> healed{false};
    std::atomic<int> created{0};
    std::string value;
  };
  auto shared = std::make_shared<Shared>();
  shared->failing = testsupport::FakeTableClient::FinalAnswer(failure, purpose);
  // The instance's Retry-After is honoured by the lane; scaled down so the cell takes ms.
  if (shared->failing.response.retry_after_ms) shared->failing.response.retry_after_ms = 50;
  shared->method = servicenow::MethodOf(purpose);
  // The client's own resend is answered (401 once): the lane sees its success.
  shared->fails = !failure.kafka_produce && !(failure.once && outcome.client_retries);
  shared->value = value;

  testsupport::FakeTableClient client([shared](const InstanceRequest& r) -> CallResult {
    bool fails = shared->fails && !shared->healed.load() && r.method == shared->method;
    if (r.method == Method::kGet) fails = fails && IsLookupRequest(r);
    if (fails) {
      // A POST whose answer is lost made the row (the worst case for duplicates).
      if (r.method == Method::kPost && shared->failing.klass == OutcomeClass::kAmbiguous) {
        ++shared->created;
      }
      return shared->failing;
    }
    switch (r.method) {
      case Method::kPost:
        ++shared->created;
        return Ok({{"sys_id", SysId(9)}}, 201);
      case Method::kGet:
        if (IsLookupRequest(r) && shared->created.load() == 0) return Rows({});
        if (IsLookupRequest(r)) {
          return Rows(
              {boost::json::object{{"sys_id", SysId(9)}, {"correlation_id", shared->value}}});
        }
        return Ok({{"sys_id", SysId(9)}});
      case Method::kPatch:
      case Method::kPut:
        return Ok({{"sys_id", SysId(1)}});
      case Method::kDelete:
        return testsupport::FakeTableClient::Empty(204);
    }
    return Ok();
  });

  sink::SinkSettings s;
  s.on_api_errors = behavior;
  s.dlq_topic = "cmds.dlq";
  std::optional<std::string> key = SysId(1);
  std::optional<boost::json::object> record_value = Desc("x");
  ShapeCell(purpose, value, s, key, record_value);
  if (failure.kafka_produce) s.reporter_success_topic = "cmds.ok";

  LaneRig rig(client, 4, s, store_.get());
  if (failure.kafka_produce) rig.producer().set_mode(FakeProducer::Mode::kFailAll);
  auto lane = rig.Lane("cmds", 0);
  lane->Enqueue(Record("cmds", 0, 0, key, record_value));
  ASSERT_TRUE(WaitFor(
      [&] {
        return rig.CompletedCount() > 0 || !rig.Failed().empty() || lane->Snapshot().retries >= 2;
      },
      5s))
      << "nothing happened";

  const auto dlq = [&] {
    std::vector<kafka::OutRecord> out;
    for (const auto& r : rig.producer().acknowledged()) {
      if (r.topic == "cmds.dlq") out.push_back(r);
    }
    return out;
  };
  const sink::LaneStatus status = lane->Snapshot();
  End seen = End::kHold;
  if (rig.CompletedCount() > 0) {
    seen = dlq().empty() ? End::kSuccess : End::kRecordError;
  } else if (!rig.Failed().empty()) {
    seen = End::kRecordError;
  } else if (status.last_error_class == "INSTANCE_UNAVAILABLE") {
    seen = End::kPause;
  }
  ASSERT_EQ(EndName(seen), EndName(expected))
      << "table says " << servicenow::ActionName(outcome.action)
      << "; lane: " << status.last_error_class << " " << status.last_error;

  const auto requests = client.requests();
  switch (expected) {
    case End::kSuccess:
      EXPECT_EQ(rig.Completed(0), std::vector<int64_t>{1});
      EXPECT_TRUE(dlq().empty());
      break;
    case End::kRecordError:
      ASSERT_EQ(dlq().size(), 1u) << "exactly one DLQ record";
      if (behavior == sink::ApiErrorBehavior::kFail) {
        EXPECT_TRUE(rig.Completed(0).empty()) << "fail: no offset moves";
        EXPECT_EQ(rig.Failed().size(), 1u);
        EXPECT_EQ(lane->Snapshot().state, sink::LaneState::kFailed);
      } else {
        ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s));
        EXPECT_EQ(rig.Completed(0), std::vector<int64_t>{1});
      }
      break;
    case End::kHold:
    case End::kPause:
      EXPECT_TRUE(rig.Completed(0).empty()) << "no offset moves while held";
      EXPECT_TRUE(dlq().empty()) << "nothing dead-lettered";
      EXPECT_TRUE(rig.Failed().empty());
      if (expected == End::kHold) {
        EXPECT_TRUE(status.last_error_class == "RETRIES_EXHAUSTED" ||
                    status.last_error_class == "PRODUCE")
            << status.last_error_class;
      }
      if (shared->failing.response.retry_after_ms) {
        EXPECT_TRUE(WaitFor([&] { return lane->Snapshot().backoff_ms == 50; }, 5s))
            << "waits what Retry-After asks";
      }
      // It resumes by itself once the instance (or Kafka) answers again.
      shared->healed = true;
      rig.producer().set_mode(FakeProducer::Mode::kAckImmediately);
      ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 5s)) << "resumes";
      EXPECT_TRUE(dlq().empty());
      break;
  }
  // What the policy actions send on their way.
  switch (outcome.action) {
    case Action::kResendCreate:
      EXPECT_EQ(MatrixCount(requests, Method::kPost), static_cast<size_t>(s.max_ambiguous_posts));
      break;
    case Action::kLookupAgain:
      EXPECT_EQ(MatrixCount(requests, Method::kPost), 1u) << "the lost POST is not repeated";
      EXPECT_EQ(MatrixCount(requests, Method::kPatch), 1u) << "the row it made is patched";
      break;
    case Action::kResendDelete:
      EXPECT_GE(MatrixCount(requests, Method::kDelete), 5u);
      break;
    case Action::kNotFoundPolicy:
      EXPECT_EQ(dlq().size(), 1u);
      EXPECT_EQ(kafka::FindHeader(dlq()[0].headers, "snow.error.class")->value, "NOT_FOUND");
      break;
    default:
      break;
  }
}

TEST_F(OutcomeMatrix, EverySinkCellEndsAsTheTableSays) {
  for (const FailureCase& failure : servicenow::FailureCatalogue()) {
    for (CallPurpose purpose : servicenow::kTableApiPurposes) {
      if (purpose == CallPurpose::kGetPage) continue;  // the source's column: the poller's test
      for (sink::ApiErrorBehavior behavior :
           {sink::ApiErrorBehavior::kFail, sink::ApiErrorBehavior::kLog,
            sink::ApiErrorBehavior::kIgnore}) {
        SCOPED_TRACE(std::string(failure.name) + " / " +
                     std::string(servicenow::CallPurposeName(purpose)) + " / behavior " +
                     std::to_string(static_cast<int>(behavior)));
        RunCell(failure, purpose, behavior);
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace snowcar::sinktest
