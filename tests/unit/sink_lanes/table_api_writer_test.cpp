// SPDX-License-Identifier: Apache-2.0
// The writer: one command -> the REST calls, for every operation and policy.
#include "sink/writer/table_api_writer.h"

#include <gtest/gtest.h>

#include <future>

#include "sink/writer/in_flight_limit.h"
#include "sink/writer/limited_client.h"
#include "sink_lanes_util.h"
#include "snowcar/state/state_store.h"
#include "support/fake_table_client.h"
#include "support/temp_dir.h"

namespace snowcar::sink {
namespace {

using servicenow::InstanceRequest;
using servicenow::Method;
using servicenow::OutcomeClass;
using sinktest::BodyField;
using sinktest::BodyOf;
using sinktest::Fail;
using sinktest::Ok;
using sinktest::Rows;
using sinktest::SysId;
using testsupport::FakeTableClient;

class TableApiWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = state::StateStore::Open({.dir = dir_.File("state")});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    settings_.table = "incident";
  }

  WriteOutcome Run(Command command, std::shared_ptr<WriteHistory> history = nullptr) {
    LimitedClient client(fake_, limit_);
    TableApiWriter writer(client, store_.get(), settings_);
    std::promise<WriteOutcome> p;
    io_.restart();
    writer.Write(
        std::move(command), io_.get_executor(), [&p](WriteOutcome o) { p.set_value(std::move(o)); },
        std::move(history));
    auto f = p.get_future();
    while (f.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) {
      if (io_.run_one_for(std::chrono::seconds(5)) == 0) break;
    }
    EXPECT_EQ(limit_.in_flight(), 0) << "every permit is given back";
    return f.get();
  }

  static Command Cmd(Operation op, std::string sys_id = {}) {
    Command c;
    c.table = "incident";
    c.operation = op;
    c.sys_id = std::move(sys_id);
    if (op != Operation::kDelete) c.fields["short_description"] = "printer on fire";
    return c;
  }

  std::vector<InstanceRequest> Requests() const { return fake_.requests(); }

  testsupport::TempDir dir_{"sink-writer"};
  std::unique_ptr<state::StateStore> store_;
  boost::asio::io_context io_;
  FakeTableClient fake_;
  InFlightLimit limit_{4};
  SinkSettings settings_;
};

TEST_F(TableApiWriterTest, CreatePostsTheFieldsAndReportsTheNewSysId) {
  fake_.set_handler([](const InstanceRequest&) { return Ok({{"sys_id", SysId(7)}}, 201); });
  WriteOutcome out = Run(Cmd(Operation::kCreate));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied->operation, Operation::kCreate);
  EXPECT_EQ(out.applied->sys_id, SysId(7));
  EXPECT_EQ(out.applied->http_status, 201);
  auto r = Requests();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].method, Method::kPost);
  EXPECT_EQ(r[0].target, "/api/now/table/incident");
  EXPECT_EQ(BodyField(r[0], "short_description"), "printer on fire");
  EXPECT_FALSE(BodyOf(r[0]).contains("sys_id"));
}

TEST_F(TableApiWriterTest, CreateWithASysIdPostsItInTheBody) {
  fake_.set_handler([](const InstanceRequest&) { return Ok({{"sys_id", SysId(9)}}, 201); });
  WriteOutcome out = Run(Cmd(Operation::kCreate, SysId(9)));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(BodyField(Requests()[0], "sys_id"), SysId(9));
}

TEST_F(TableApiWriterTest, PatchAndPutAddressTheRowBySysId) {
  fake_.set_handler([](const InstanceRequest&) { return Ok({{"sys_id", SysId(1)}}); });
  ASSERT_TRUE(Run(Cmd(Operation::kPatch, SysId(1))).ok());
  ASSERT_TRUE(Run(Cmd(Operation::kPut, SysId(1))).ok());
  auto r = Requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].method, Method::kPatch);
  EXPECT_EQ(r[1].method, Method::kPut);
  EXPECT_EQ(r[0].target, "/api/now/table/incident/" + SysId(1));
  EXPECT_EQ(r[1].target, "/api/now/table/incident/" + SysId(1));
  EXPECT_EQ(BodyField(r[1], "short_description"), "printer on fire");
}

TEST_F(TableApiWriterTest, DeleteSendsADeleteWithoutBody) {
  fake_.set_handler([](const InstanceRequest&) { return Ok({}, 204); });
  WriteOutcome out = Run(Cmd(Operation::kDelete, SysId(3)));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied->operation, Operation::kDelete);
  auto r = Requests();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].method, Method::kDelete);
  EXPECT_EQ(r[0].target, "/api/now/table/incident/" + SysId(3));
  EXPECT_TRUE(r[0].body.empty());
}

TEST_F(TableApiWriterTest, NotFoundUnderFailIsANotFoundFailure) {
  settings_.not_found = NotFoundBehavior::kFail;
  fake_.set_handler(
      [](const InstanceRequest&) { return Fail(OutcomeClass::kNotFound, 404, "No Record found"); });
  WriteOutcome out = Run(Cmd(Operation::kPatch, SysId(4)));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kNotFound);
  EXPECT_EQ(out.failure->http_status, 404);
  EXPECT_NE(out.failure->message.find("not.found.behavior=fail"), std::string::npos);
  EXPECT_NE(out.failure->message.find("PATCH incident/" + SysId(4)), std::string::npos);
  EXPECT_EQ(Requests().size(), 1u);
}

TEST_F(TableApiWriterTest, NotFoundUnderIgnoreCompletesWithoutWriting) {
  settings_.not_found = NotFoundBehavior::kIgnore;
  fake_.set_handler([](const InstanceRequest&) { return Fail(OutcomeClass::kNotFound, 404); });
  WriteOutcome out = Run(Cmd(Operation::kPut, SysId(4)));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out.ignored);
  EXPECT_EQ(Requests().size(), 1u);
}

TEST_F(TableApiWriterTest, NotFoundUnderCreatePostsWithTheAddressedSysId) {
  settings_.not_found = NotFoundBehavior::kCreate;
  fake_.set_handler([](const InstanceRequest& r) {
    if (r.method == Method::kPatch) return Fail(OutcomeClass::kNotFound, 404);
    return Ok({{"sys_id", SysId(5)}}, 201);
  });
  WriteOutcome out = Run(Cmd(Operation::kPatch, SysId(5)));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied->operation, Operation::kCreate);
  EXPECT_EQ(out.applied->sys_id, SysId(5));
  auto r = Requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].method, Method::kPost);
  EXPECT_EQ(r[1].target, "/api/now/table/incident");
  EXPECT_EQ(BodyField(r[1], "sys_id"), SysId(5));
  EXPECT_EQ(BodyField(r[1], "short_description"), "printer on fire");
}

TEST_F(TableApiWriterTest, DeleteNotFoundOnTheFirstTryFollowsThePolicy) {
  settings_.not_found = NotFoundBehavior::kFail;
  fake_.set_handler([](const InstanceRequest&) { return Fail(OutcomeClass::kNotFound, 404); });
  WriteOutcome out = Run(Cmd(Operation::kDelete, SysId(6)));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kNotFound);

  settings_.not_found = NotFoundBehavior::kCreate;  // nothing to create for a delete
  out = Run(Cmd(Operation::kDelete, SysId(6)));
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out.ignored);
  EXPECT_EQ(Requests().size(), 2u) << "no POST for a delete";
}

TEST_F(TableApiWriterTest, DeleteNotFoundAfterAnAmbiguousFirstTryIsSuccess) {
  settings_.not_found = NotFoundBehavior::kFail;
  int calls = 0;
  fake_.set_handler([&calls](const InstanceRequest&) {
    return ++calls == 1 ? Fail(OutcomeClass::kAmbiguous, 0, "connection closed")
                        : Fail(OutcomeClass::kNotFound, 404);
  });
  WriteOutcome out = Run(Cmd(Operation::kDelete, SysId(6)));
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out.ignored);
  EXPECT_EQ(out.applied->operation, Operation::kDelete);
  EXPECT_EQ(Requests().size(), 2u);
}

TEST_F(TableApiWriterTest, AmbiguousCreateUnderRetryPostsAgain) {
  settings_.ambiguous_create = AmbiguousCreateBehavior::kRetry;
  int calls = 0;
  fake_.set_handler([&calls](const InstanceRequest&) {
    return ++calls == 1 ? Fail(OutcomeClass::kAmbiguous, 0) : Ok({{"sys_id", SysId(8)}}, 201);
  });
  WriteOutcome out = Run(Cmd(Operation::kCreate));
  ASSERT_TRUE(out.ok());
  auto r = Requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].method, Method::kPost);
  EXPECT_EQ(r[1].method, Method::kPost);
}

// Each POST whose answer was lost may have created a row: under retry there are at most
// snow.retry.max.attempts of them, then the record fails as AMBIGUOUS.
TEST_F(TableApiWriterTest, AmbiguousCreateUnderRetryIsBounded) {
  settings_.ambiguous_create = AmbiguousCreateBehavior::kRetry;
  for (int max : {1, 3, 7}) {
    settings_.max_ambiguous_posts = max;
    const size_t before = Requests().size();
    fake_.set_handler(
        [](const InstanceRequest&) { return Fail(OutcomeClass::kAmbiguous, 0, "EOF"); });
    WriteOutcome out = Run(Cmd(Operation::kCreate));
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.failure->klass, ErrorClass::kAmbiguous) << max;
    EXPECT_EQ(out.failure->attempts, max);
    EXPECT_NE(out.failure->message.find("snow.retry.max.attempts=" + std::to_string(max)),
              std::string::npos)
        << out.failure->message;
    EXPECT_EQ(Requests().size() - before, static_cast<size_t>(max)) << max;
  }
}

// The count lives in the WriteHistory the lane passes to each try of the record.
TEST_F(TableApiWriterTest, TheAmbiguousPostBoundCountsEarlierTries) {
  settings_.ambiguous_create = AmbiguousCreateBehavior::kRetry;
  settings_.max_ambiguous_posts = 3;
  fake_.set_handler(
      [](const InstanceRequest&) { return Fail(OutcomeClass::kAmbiguous, 0, "EOF"); });
  auto history = std::make_shared<WriteHistory>();
  history->ambiguous_posts = 2;
  WriteOutcome out = Run(Cmd(Operation::kCreate), history);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kAmbiguous);
  EXPECT_EQ(Requests().size(), 1u);
  EXPECT_EQ(history->ambiguous_posts, 3);
}

// A create naming its sys_id whose POST lost its answer in an earlier try (the GET that would
// have settled it failed, and the lane retried): the new try asks first instead of POSTing a
// row that may exist already.
TEST_F(TableApiWriterTest, ACreateWithASysIdAsksFirstAfterAnEarlierTryLostItsAnswer) {
  settings_.ambiguous_create = AmbiguousCreateBehavior::kRetry;
  fake_.set_handler([](const InstanceRequest&) { return Ok({{"sys_id", SysId(2)}}); });
  auto history = std::make_shared<WriteHistory>();
  history->ambiguous_posts = 1;
  WriteOutcome out = Run(Cmd(Operation::kCreate, SysId(2)), history);
  ASSERT_TRUE(out.ok());
  auto r = Requests();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].method, Method::kGet);
  EXPECT_EQ(r[0].target, "/api/now/table/incident/" + SysId(2) +
                             "?sysparm_fields=sys_id%2Csys_mod_count%2Csys_updated_on");
}

// A PATCH or PUT whose answer stayed lost after the client's resends is not the record's
// fault and is harmless to send again: RETRIES_EXHAUSTED (the lane holds the record and
// retries), never AMBIGUOUS (a record error).
TEST_F(TableApiWriterTest, LostAnswersOfPatchAndPutAreHeldNotRecordErrors) {
  fake_.set_handler([](const InstanceRequest&) {
    return Fail(OutcomeClass::kAmbiguous, 0, "request sent but its answer was lost");
  });
  for (Operation op : {Operation::kPatch, Operation::kPut}) {
    WriteOutcome out = Run(Cmd(op, SysId(1)));
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.failure->klass, ErrorClass::kRetriesExhausted) << OperationName(op);
    EXPECT_NE(out.failure->message.find("sent again later"), std::string::npos);
  }
}

// A DELETE whose earlier try (a lane retry ago) lost its answer: the 404 now is success.
TEST_F(TableApiWriterTest, DeleteNotFoundAfterALostAnswerOfAnEarlierTryIsSuccess) {
  settings_.not_found = NotFoundBehavior::kFail;
  fake_.set_handler([](const InstanceRequest&) { return Fail(OutcomeClass::kNotFound, 404); });
  auto history = std::make_shared<WriteHistory>();
  history->delete_sent = true;
  WriteOutcome out = Run(Cmd(Operation::kDelete, SysId(6)), history);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out.ignored);
  EXPECT_EQ(Requests().size(), 1u);
}

TEST_F(TableApiWriterTest, AmbiguousCreateUnderFailAmbiguousFails) {
  settings_.ambiguous_create = AmbiguousCreateBehavior::kFailAmbiguous;
  fake_.set_handler(
      [](const InstanceRequest&) { return Fail(OutcomeClass::kAmbiguous, 0, "EOF"); });
  WriteOutcome out = Run(Cmd(Operation::kCreate));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kAmbiguous);
  EXPECT_NE(out.failure->message.find("fail_ambiguous"), std::string::npos);
  EXPECT_EQ(Requests().size(), 1u);
}

TEST_F(TableApiWriterTest, AmbiguousCreateWithAKnownSysIdIsSettledByAGet) {
  settings_.ambiguous_create = AmbiguousCreateBehavior::kRetry;
  fake_.set_handler([](const InstanceRequest& r) {
    if (r.method == Method::kPost) return Fail(OutcomeClass::kAmbiguous, 0);
    return Ok({{"sys_id", SysId(2)}});  // the GET finds the row: the POST did apply
  });
  WriteOutcome out = Run(Cmd(Operation::kCreate, SysId(2)));
  ASSERT_TRUE(out.ok());
  auto r = Requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].method, Method::kGet);
  EXPECT_EQ(r[1].target, "/api/now/table/incident/" + SysId(2) +
                             "?sysparm_fields=sys_id%2Csys_mod_count%2Csys_updated_on");
}

class CorrelationTest : public TableApiWriterTest {
 protected:
  void SetUp() override {
    TableApiWriterTest::SetUp();
    settings_.ambiguous_create = AmbiguousCreateBehavior::kCorrelationLookup;
    settings_.correlation_field = "correlation_id";
  }
  static Command Create(std::string value) {
    Command c = Cmd(Operation::kCreate);
    c.fields["correlation_id"] = value;
    c.correlation_value = std::move(value);
    return c;
  }
  std::optional<std::string> Cached(const std::string& value) {
    auto got = store_->GetCorrelation("incident", "correlation_id", value);
    EXPECT_TRUE(got.ok());
    return got.ok() ? *got : std::nullopt;
  }
};

TEST_F(CorrelationTest, NoMatchPostsAndCachesTheNewRow) {
  fake_.set_handler([](const InstanceRequest& r) {
    if (r.method == Method::kGet) return Rows({});
    return Ok({{"sys_id", SysId(11)}}, 201);
  });
  WriteOutcome out = Run(Create("ext 1/a&b"));
  ASSERT_TRUE(out.ok());
  auto r = Requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].method, Method::kGet);
  EXPECT_EQ(r[0].target,
            "/api/now/table/incident?sysparm_query=correlation_id%3Dext%201%2Fa%26b"
            "&sysparm_fields=sys_id%2Ccorrelation_id&sysparm_limit=2");
  EXPECT_EQ(r[1].method, Method::kPost);
  EXPECT_EQ(Cached("ext 1/a&b"), SysId(11));
}

TEST_F(CorrelationTest, OneMatchPatchesThatRow) {
  fake_.set_handler([](const InstanceRequest& r) {
    if (r.method == Method::kGet) {
      return Rows({boost::json::object{{"sys_id", SysId(12)}, {"correlation_id", "ext-2"}}});
    }
    return Ok({{"sys_id", SysId(12)}});
  });
  WriteOutcome out = Run(Create("ext-2"));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied->operation, Operation::kPatch);
  EXPECT_EQ(out.applied->sys_id, SysId(12));
  auto r = Requests();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].method, Method::kPatch);
  EXPECT_EQ(r[1].target, "/api/now/table/incident/" + SysId(12));
  EXPECT_EQ(Cached("ext-2"), SysId(12));
}

// The instance may read a query differently than meant (a term it ignores, a looser
// comparison): a returned row is used only when it carries the correlation value itself.
TEST_F(CorrelationTest, ARowThatDoesNotCarryTheValueIsNotUsed) {
  for (const boost::json::object& row :
       {boost::json::object{{"sys_id", SysId(12)}, {"correlation_id", "other"}},
        boost::json::object{{"sys_id", SysId(12)}, {"correlation_id", "EXT-6"}},
        boost::json::object{{"sys_id", SysId(12)}}}) {
    fake_.set_handler([row](const InstanceRequest& r) {
      if (r.method == Method::kGet) return Rows({row});
      return Ok({{"sys_id", SysId(12)}});
    });
    const size_t before = Requests().size();
    WriteOutcome out = Run(Create("ext-6"));
    ASSERT_FALSE(out.ok()) << boost::json::serialize(row);
    EXPECT_EQ(out.failure->klass, ErrorClass::kAmbiguous);
    EXPECT_NE(out.failure->message.find("nothing written"), std::string::npos);
    EXPECT_EQ(Requests().size(), before + 1) << "neither a PATCH nor a POST";
    EXPECT_EQ(Cached("ext-6"), std::nullopt);
  }
}

// A reference-style answer ({"value": ...}) carries the value too.
TEST_F(CorrelationTest, ARowCarryingTheValueAsAReferenceIsUsed) {
  fake_.set_handler([](const InstanceRequest& r) {
    if (r.method == Method::kGet) {
      return Rows({boost::json::object{
          {"sys_id", SysId(17)},
          {"correlation_id", boost::json::object{{"link", "x"}, {"value", "ext-7"}}}}});
    }
    return Ok({{"sys_id", SysId(17)}});
  });
  WriteOutcome out = Run(Create("ext-7"));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied->sys_id, SysId(17));
}

// A PATCH of the row a lookup found, whose answer was lost, is held like any other PATCH.
TEST_F(CorrelationTest, LostAnswerOfThePatchIsHeld) {
  fake_.set_handler([](const InstanceRequest& r) {
    if (r.method == Method::kGet) {
      return Rows({boost::json::object{{"sys_id", SysId(18)}, {"correlation_id", "ext-8"}}});
    }
    return Fail(OutcomeClass::kAmbiguous, 0, "connection closed");
  });
  WriteOutcome out = Run(Create("ext-8"));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kRetriesExhausted);
}

TEST_F(CorrelationTest, TwoMatchesAreAmbiguousAndNothingIsWritten) {
  fake_.set_handler([](const InstanceRequest&) {
    return Rows(
        {boost::json::object{{"sys_id", SysId(1)}}, boost::json::object{{"sys_id", SysId(2)}}});
  });
  WriteOutcome out = Run(Create("dup"));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kAmbiguous);
  EXPECT_NE(out.failure->message.find("2 or more rows"), std::string::npos);
  EXPECT_EQ(Requests().size(), 1u);
  EXPECT_EQ(Cached("dup"), std::nullopt);
}

TEST_F(CorrelationTest, CacheHitPatchesWithoutALookup) {
  ASSERT_TRUE(store_->PutCorrelation("incident", "correlation_id", "ext-3", SysId(13)).ok());
  fake_.set_handler([](const InstanceRequest&) { return Ok({{"sys_id", SysId(13)}}); });
  WriteOutcome out = Run(Create("ext-3"));
  ASSERT_TRUE(out.ok());
  auto r = Requests();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].method, Method::kPatch);
  EXPECT_EQ(r[0].target, "/api/now/table/incident/" + SysId(13));
}

TEST_F(CorrelationTest, CachedRowAnswering404IsDroppedAndLookedUpAgain) {
  ASSERT_TRUE(store_->PutCorrelation("incident", "correlation_id", "ext-4", SysId(14)).ok());
  fake_.set_handler([](const InstanceRequest& r) {
    if (r.method == Method::kPatch) return Fail(OutcomeClass::kNotFound, 404);
    if (r.method == Method::kGet) return Rows({});
    return Ok({{"sys_id", SysId(15)}}, 201);
  });
  WriteOutcome out = Run(Create("ext-4"));
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied->sys_id, SysId(15));
  auto r = Requests();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].method, Method::kPatch);
  EXPECT_EQ(r[1].method, Method::kGet);
  EXPECT_EQ(r[2].method, Method::kPost);
  EXPECT_EQ(Cached("ext-4"), SysId(15));
}

TEST_F(CorrelationTest, AmbiguousPostIsFollowedByAnotherLookup) {
  int gets = 0;
  fake_.set_handler([&gets](const InstanceRequest& r) {
    if (r.method == Method::kGet) {
      // Before the POST nothing matches; after it, the row it created does.
      return ++gets == 1
                 ? Rows({})
                 : Rows({boost::json::object{{"sys_id", SysId(16)}, {"correlation_id", "ext-5"}}});
    }
    if (r.method == Method::kPost) return Fail(OutcomeClass::kAmbiguous, 0, "connection closed");
    return Ok({{"sys_id", SysId(16)}});
  });
  WriteOutcome out = Run(Create("ext-5"));
  ASSERT_TRUE(out.ok());
  auto r = Requests();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0].method, Method::kGet);
  EXPECT_EQ(r[1].method, Method::kPost);
  EXPECT_EQ(r[2].method, Method::kGet);
  EXPECT_EQ(r[3].method, Method::kPatch);
  EXPECT_EQ(Cached("ext-5"), SysId(16));
}

TEST_F(CorrelationTest, MissingCorrelationValueIsARecordErrorBeforeAnyRequest) {
  WriteOutcome out = Run(Cmd(Operation::kCreate));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kRecordError);
  EXPECT_NE(out.failure->message.find("correlation_id"), std::string::npos);
  EXPECT_EQ(Requests().size(), 0u);
}

TEST_F(TableApiWriterTest, ErrorsMapToTheirClasses) {
  struct Case {
    OutcomeClass outcome;
    int status;
    ErrorClass expected;
  };
  for (const Case& c : {Case{OutcomeClass::kPermission, 403, ErrorClass::kPermission},
                        Case{OutcomeClass::kConflict, 409, ErrorClass::kConflict},
                        Case{OutcomeClass::kPermanent, 400, ErrorClass::kRecordError},
                        Case{OutcomeClass::kUnauthorized, 401, ErrorClass::kInstanceUnavailable},
                        Case{OutcomeClass::kRetryable, 503, ErrorClass::kRetriesExhausted}}) {
    fake_.set_handler([c](const InstanceRequest&) { return Fail(c.outcome, c.status, "refused"); });
    WriteOutcome out = Run(Cmd(Operation::kPatch, SysId(1)));
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.failure->klass, c.expected) << c.status;
    EXPECT_EQ(out.failure->http_status, c.status);
    EXPECT_EQ(out.failure->response_excerpt, "refused");
    EXPECT_NE(out.failure->message.find("HTTP " + std::to_string(c.status)), std::string::npos);
  }
}

// An instance that cannot be reached at all (a certificate it presents is refused), or that
// refuses the credentials after a fresh token, says nothing about the record: the lane holds
// it as INSTANCE_UNAVAILABLE (the decision table's pause) instead of dead-lettering it.
TEST_F(TableApiWriterTest, AnUnreachableInstanceIsRetriedNotDeadLettered) {
  fake_.set_handler([](const InstanceRequest&) {
    servicenow::CallResult r =
        Fail(OutcomeClass::kPermanent, 0,
             "cannot talk to the instance: SSL peer certificate or SSH remote key was not OK");
    r.instance_unreachable = true;
    return r;
  });
  WriteOutcome out = Run(Cmd(Operation::kPatch, SysId(1)));
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.failure->klass, ErrorClass::kInstanceUnavailable);
  EXPECT_NE(out.failure->message.find("certificate"), std::string::npos) << out.failure->message;

  fake_.set_handler([](const InstanceRequest&) {
    servicenow::CallResult r = Fail(OutcomeClass::kUnauthorized, 401, "User Not Authenticated");
    r.instance_unreachable = true;
    return r;
  });
  WriteOutcome refused = Run(Cmd(Operation::kPatch, SysId(1)));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure->klass, ErrorClass::kInstanceUnavailable);
  EXPECT_TRUE(sink::IsHeld(refused.failure->klass));
}

}  // namespace
}  // namespace snowcar::sink
