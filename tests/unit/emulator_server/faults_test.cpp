// SPDX-License-Identifier: Apache-2.0
// Every fault knob, seen from a real HTTP client.
#include <gtest/gtest.h>

#include <chrono>

#include "emulator_fixture.h"

namespace snowcar::emulator::testing {
namespace {

class Faults : public EmulatorTest {
 protected:
  HttpResult List(int limit = 10) {
    return Get(Url("/api/now/table/incident?sysparm_limit=" + std::to_string(limit)));
  }
  static FaultRule Rule(FaultKind kind, int64_t next_n, std::string method = "") {
    FaultRule r;
    r.kind = kind;
    r.next_n = next_n;
    r.scope.method = std::move(method);
    return r;
  }
  static bool ParsesAsJson(const std::string& body) {
    boost::json::error_code ec;
    boost::json::parse(body, ec);
    return !ec;
  }
};

TEST_F(Faults, RateLimitForNextNWithDocumentedHeaders) {
  server_->clock().FreezeAt(1'700'000'000'000);
  FaultRule rule = Rule(FaultKind::kRateLimit, 2);
  rule.retry_after_seconds = 7;
  rule.rate_limit_per_hour = 500;
  server_->faults().AddRule(rule);
  for (int i = 0; i < 2; ++i) {
    auto r = List();
    ASSERT_EQ(r.status, 429);
    EXPECT_EQ(r.Header("retry-after"), "7");
    EXPECT_EQ(r.Header("x-ratelimit-limit"), "500");
    EXPECT_EQ(r.Header("x-ratelimit-reset"), "1700000007");
    EXPECT_EQ(r.Header("x-ratelimit-rule").size(), 32u);
    EXPECT_EQ(Json(r.body).at("error").at("message").as_string(), "Rate limit exceeded");
  }
  EXPECT_EQ(List().status, 200);
  EXPECT_EQ(server_->journal().All().front().fault, "rate_limit");
}

TEST_F(Faults, SemaphoreExhaustionHasNoRateLimitHeaders) {
  server_->faults().AddRule(Rule(FaultKind::kSemaphore, 1));
  auto r = List();
  EXPECT_EQ(r.status, 429);
  EXPECT_FALSE(r.Has("x-ratelimit-limit"));
  EXPECT_FALSE(r.Has("x-ratelimit-reset"));
  EXPECT_FALSE(r.Has("x-ratelimit-rule"));
}

TEST_F(Faults, ServerErrorShareFailsAboutThatShare) {
  FaultRule rule;
  rule.kind = FaultKind::kServerError;
  rule.share = 0.5;
  rule.status = 502;
  server_->faults().AddRule(rule);
  int failed = 0;
  for (int i = 0; i < 200; ++i) {
    auto r = List(1);
    if (r.status == 502) {
      ++failed;
    } else {
      ASSERT_EQ(r.status, 200);
    }
  }
  EXPECT_GT(failed, 60);
  EXPECT_LT(failed, 140);
}

TEST_F(Faults, ServerError500IsJsonAnd503IsAProxyPage) {
  FaultRule rule = Rule(FaultKind::kServerError, 1);
  rule.status = 500;
  server_->faults().AddRule(rule);
  auto r = List();
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(Json(r.body).at("status").as_string(), "failure");
  rule.status = 503;
  server_->faults().AddRule(rule);
  r = List();
  EXPECT_EQ(r.status, 503);
  EXPECT_EQ(r.Header("content-type"), "text/html");
}

TEST_F(Faults, ForbiddenIs403) {
  server_->faults().AddRule(Rule(FaultKind::kForbidden, 1));
  auto r = List();
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(Json(r.body).at("error").at("message").as_string(),
            "Insufficient rights to query records");
}

TEST_F(Faults, DropMidResponseIsATransferError) {
  server_->faults().AddRule(Rule(FaultKind::kDropMidResponse, 1));
  auto r = List(50);
  EXPECT_EQ(r.status, 200);  // the status line and headers arrived
  EXPECT_NE(r.code, CURLE_OK);
  EXPECT_FALSE(ParsesAsJson(r.body));
  EXPECT_EQ(List(50).code, CURLE_OK);  // next request is fine
}

TEST_F(Faults, DropOfAnAnswerWithoutBodyCutsTheHeaders) {
  auto created = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"x"})");
  const std::string id(Json(created.body).at("result").at("sys_id").as_string());
  server_->faults().AddRule(Rule(FaultKind::kDropMidResponse, 1, "DELETE"));
  auto r = Send("DELETE", Url("/api/now/table/incident/" + id), "");
  EXPECT_NE(r.code, CURLE_OK);
  EXPECT_FALSE(server_->store().Get("incident", id).ok());  // the delete itself happened
}

TEST_F(Faults, TimedOutQueryIs200WithTruncatedResultAndFailureStatus) {
  server_->faults().AddRule(Rule(FaultKind::kTimedOutQuery, 1));
  auto r = List(10);
  ASSERT_EQ(r.status, 200);
  auto doc = Json(r.body);
  EXPECT_EQ(doc.at("result").as_array().size(), 5u);
  EXPECT_EQ(doc.at("error").at("message").as_string(),
            "Transaction cancelled: maximum execution time exceeded");
  EXPECT_EQ(doc.at("status").as_string(), "failure");
}

TEST_F(Faults, TimedOutQueryCanAlsoBeMalformedLikeFixture15) {
  FaultRule rule = Rule(FaultKind::kTimedOutQuery, 1);
  rule.valid_json = false;
  server_->faults().AddRule(rule);
  auto r = List(10);
  ASSERT_EQ(r.status, 200);
  EXPECT_FALSE(ParsesAsJson(r.body));
  EXPECT_NE(r.body.find("Transaction cancelled: maximum execution time exceeded"),
            std::string::npos);
}

TEST_F(Faults, MalformedJsonKeepsFramingButBreaksTheBody) {
  server_->faults().AddRule(Rule(FaultKind::kMalformedJson, 1));
  auto r = List(10);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.code, CURLE_OK);
  EXPECT_FALSE(ParsesAsJson(r.body));
}

TEST_F(Faults, AclShortPagesAreAppliedAfterTheLimit) {
  AclKnob acl;
  acl.hide_every = 3;
  server_->faults().SetAcl(acl);
  size_t seen = 0;
  bool some_short = false;
  for (int offset = 0; offset < 73; offset += 10) {
    auto r = Get(
        Url("/api/now/table/incident?sysparm_limit=10&sysparm_offset=" + std::to_string(offset)));
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.Header("x-total-count"), "73");  // the count ignores the ACL
    const size_t n = Json(r.body).at("result").as_array().size();
    if (n < 10 && offset + 10 <= 73) some_short = true;
    seen += n;
  }
  size_t hidden = 0;
  auto snapshot = server_->store().Snapshot("incident");
  ASSERT_TRUE(snapshot.ok());
  for (const auto& row : *snapshot) {
    if (acl.Hides("incident", row->sys_id())) ++hidden;
  }
  EXPECT_GT(hidden, 0u);
  EXPECT_TRUE(some_short);
  EXPECT_EQ(seen, 73 - hidden);
}

TEST_F(Faults, ApplyThenDropCreatesTheRowButSendsNothing) {
  server_->faults().AddRule(Rule(FaultKind::kApplyThenDrop, 1, "POST"));
  const size_t before = server_->store().Count("incident");
  auto r = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"ambiguous"})");
  EXPECT_EQ(r.code, CURLE_GOT_NOTHING);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(server_->store().Count("incident"), before + 1);
}

TEST_F(Faults, AnswerSendsAnyStatusAndBodyAndRunsNothing) {
  FaultRule rule = Rule(FaultKind::kAnswer, 1, "POST");
  rule.status = 202;
  server_->faults().AddRule(rule);
  rule.status = 200;
  rule.body = R"({"error":{"message":"aborted by Business Rule"},"status":"failure"})";
  server_->faults().AddRule(rule);
  const size_t before = server_->store().Count("incident");
  auto r = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"queued"})");
  EXPECT_EQ(r.status, 202);
  EXPECT_TRUE(r.body.empty());
  r = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"refused"})");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, rule.body);
  EXPECT_EQ(server_->store().Count("incident"), before) << "neither request ran";
}

TEST_F(Faults, DropBeforeApplyClosesWithoutRunningTheRequest) {
  server_->faults().AddRule(Rule(FaultKind::kDropBeforeApply, 1, "POST"));
  const size_t before = server_->store().Count("incident");
  auto r = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"lost"})");
  EXPECT_EQ(r.code, CURLE_GOT_NOTHING);
  EXPECT_EQ(server_->store().Count("incident"), before);
}

TEST_F(Faults, ApplyThenStallRunsTheRequestAndAnswersLate) {
  FaultRule rule = Rule(FaultKind::kApplyThenStall, 1, "POST");
  rule.delay_ms = 150;
  server_->faults().AddRule(rule);
  const size_t before = server_->store().Count("incident");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"slow"})");
  EXPECT_EQ(r.status, 201);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
  EXPECT_EQ(server_->store().Count("incident"), before + 1);
}

TEST_F(Faults, ScopeLimitsAFaultToMethodAndPath) {
  FaultRule rule = Rule(FaultKind::kServerError, 5, "POST");
  rule.scope.path_prefix = "/api/now/table/incident";
  server_->faults().AddRule(rule);
  EXPECT_EQ(List().status, 200);  // GET is out of scope
  EXPECT_EQ(Send("POST", Url("/api/now/table/incident"), "{}").status, 503);
}

TEST_F(Faults, LatencyDelaysTheAnswer) {
  LatencyKnob k;
  k.fixed_ms = 150;
  server_->faults().SetLatency(k);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(List().status, 200);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(150));
}

TEST_F(Faults, ResetClearsFaults) {
  server_->faults().AddRule(Rule(FaultKind::kServerError, 10));
  server_->Reset();
  EXPECT_EQ(List().status, 200);
  EXPECT_EQ(server_->journal().size(), 1u);
}

}  // namespace
}  // namespace snowcar::emulator::testing
