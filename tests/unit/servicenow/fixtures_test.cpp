// SPDX-License-Identifier: Apache-2.0
// Every recorded answer in shared/fixtures/servicenow is parsed and classified here. The
// expectation table must name every file: a new fixture without an expectation fails.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "fixture_loader.h"
#include "snowcar/servicenow/classify.h"
#include "snowcar/servicenow/oauth_form.h"
#include "snowcar/servicenow/table_response.h"

namespace snowcar::servicenow {
namespace {

using testing::Fixture;

constexpr int64_t kNow = 1'700'000'000'000;

struct Expectation {
  int status_if_missing = 0;  // for files whose source did not record the status
  BodyKind kind;
  OutcomeClass klass;
  bool retry;
  std::function<void(const Fixture&, const TableResponse&, const Verdict&)> more = nullptr;
};

Verdict ClassifyFixture(const Fixture& f, const TableResponse& parsed, int status) {
  AttemptFacts facts;
  facts.method = f.method;
  facts.list_request = f.method == Method::kGet && IsTableListTarget(f.url);
  facts.request_sent = true;
  facts.http_status = status;
  facts.parsed = &parsed;
  return Classify(facts);
}

const std::map<std::string, Expectation>& Expectations() {
  static const auto* table = new std::map<std::string, Expectation>{
      {"01-list-link-total-curl-2021.json",
       // The capture has no body; a GET answered with no body is a cut-short answer.
       {0, BodyKind::kEmpty, OutcomeClass::kRetryable, true,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          EXPECT_EQ(r.total_count, 73);
          ASSERT_EQ(r.links.size(), 4u);
          EXPECT_EQ(FindLink(r.links, "next"),
                    "https://dev86373.service-now.com/api/now/table/incident?sysparm_limit=1&"
                    "sysparm_offset=1");
          EXPECT_EQ(FindLink(r.links, "prev"),
                    "https://dev86373.service-now.com/api/now/table/incident?sysparm_limit=1&"
                    "sysparm_offset=-1");
          EXPECT_TRUE(FindLink(r.links, "last")->ends_with("sysparm_offset=72"));
          // Fri, 26 Feb 2021 13:49:48 GMT
          EXPECT_EQ(r.server_date_ms, int64_t{1614347388} * 1000);
        }}},
      {"02-get-401-no-auth-2021.json",
       {0, BodyKind::kError, OutcomeClass::kUnauthorized, false,
        [](const Fixture&, const TableResponse& r, const Verdict& v) {
          EXPECT_EQ(r.error_message, "User Not Authenticated");
          EXPECT_EQ(r.error_detail, "Required to provide Auth information");
          EXPECT_TRUE(v.reauthenticate);
        }}},
      {"03-list-total1-no-link-2021.json",
       {0, BodyKind::kEmpty, OutcomeClass::kRetryable, true,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          EXPECT_EQ(r.total_count, 1);
          EXPECT_TRUE(r.links.empty());
        }}},
      {"04-list-2026-snow-adc-headers.json",
       {0, BodyKind::kEmpty, OutcomeClass::kRetryable, true,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          EXPECT_TRUE(r.links.empty()) << "the Link header is cut inside its first URL";
          EXPECT_EQ(r.server_date_ms, int64_t{1782729083} * 1000);  // Mon, 29 Jun 2026 10:31:23
        }}},
      {"05-list-2026-link-total-body-start.json",
       {0, BodyKind::kMalformed, OutcomeClass::kRetryable, true,
        [](const Fixture&, const TableResponse& r, const Verdict& v) {
          EXPECT_EQ(r.total_count, 73);
          EXPECT_TRUE(FindLink(r.links, "next").has_value());
          EXPECT_NE(v.message.find("not valid JSON"), std::string::npos) << v.message;
        }}},
      {"06-get-401-2026-message-changed.json",
       {0, BodyKind::kError, OutcomeClass::kUnauthorized, false,
        [](const Fixture&, const TableResponse& r, const Verdict& v) {
          EXPECT_EQ(r.error_message, "User is not authenticated");
          EXPECT_TRUE(v.reauthenticate);
        }}},
      {"07-list-v2-link-unknown-params-echoed.json",
       {0, BodyKind::kList, OutcomeClass::kOk, false,
        [](const Fixture& f, const TableResponse& r, const Verdict&) {
          EXPECT_TRUE(IsTableListTarget(f.url));
          ASSERT_EQ(r.rows.size(), 1u);
          // The request asked for INC0000040 with a parameter the API ignores: another row came.
          EXPECT_EQ(r.rows[0].as_object().at("number").as_string(), "INC0000060");
          EXPECT_EQ(r.total_count, 67);
          EXPECT_TRUE(FindLink(r.links, "last")->ends_with("sysparm_offset=66"));
        }}},
      {"08-post-201-location.json",
       {0, BodyKind::kRecord, OutcomeClass::kOk, false,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          ASSERT_TRUE(r.location.has_value());
          const std::string sys_id(r.record.at("sys_id").as_string());
          EXPECT_EQ(sys_id.size(), 32u);
          EXPECT_TRUE(r.location->ends_with(sys_id)) << *r.location;
          EXPECT_EQ(r.record.at("sys_mod_count").as_string(), "0");
        }}},
      {"09-post-201-bad-reference-values.json",
       {0, BodyKind::kRecord, OutcomeClass::kOk, false,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          EXPECT_TRUE(r.record.contains("sys_id"));
        }}},
      {"10-patch-200-display-value-true.json", {0, BodyKind::kRecord, OutcomeClass::kOk, false}},
      {"11-patch-200-empty-body.json", {0, BodyKind::kEmpty, OutcomeClass::kOk, false}},
      {"12-list-single-page-no-link.json",
       {0, BodyKind::kEmpty, OutcomeClass::kRetryable, true,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          EXPECT_EQ(r.total_count, 1);
          EXPECT_TRUE(r.links.empty());
        }}},
      {"13-display-value-all.json",
       {0, BodyKind::kList, OutcomeClass::kOk, false,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          ASSERT_FALSE(r.rows.empty());
          EXPECT_TRUE(r.rows[0].as_object().at("number").is_object());
        }}},
      {"14-display-value-true-nulls.json",
       {0, BodyKind::kList, OutcomeClass::kOk, false,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          ASSERT_FALSE(r.rows.empty());
          EXPECT_TRUE(r.rows[0].as_object().at("discovery_source").is_null());
        }}},
      {"15-200-transaction-cancelled-malformed.json",
       {0, BodyKind::kMalformed, OutcomeClass::kRetryable, true,
        [](const Fixture&, const TableResponse& r, const Verdict& v) {
          EXPECT_EQ(r.error_message, "Transaction cancelled: maximum execution time exceeded");
          EXPECT_NE(v.message.find("Transaction cancelled"), std::string::npos) << v.message;
        }}},
      {"16-error-not-part-of-api.json",
       // Status not recorded; an instance sends this with 404. Not a v1 "no record" pardon.
       {404, BodyKind::kError, OutcomeClass::kNotFound, false,
        [](const Fixture& f, const TableResponse& r, const Verdict& v) {
          EXPECT_EQ(r.error_detail, "") << "a blank detail reads as none";
          EXPECT_EQ(v.message, "HTTP 404: The resource you requested is not part of the API.");
          // Served with 200 (as the capture's own tests also do): an error body is a failure.
          Verdict as200 = ClassifyFixture(f, r, 200);
          EXPECT_EQ(as200.klass, OutcomeClass::kPermanent);
        }}},
      {"17-delete-404-no-record.json",
       {0, BodyKind::kError, OutcomeClass::kNotFound, false,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          // The same body on a v1 list GET means "no rows", not an error.
          AttemptFacts facts;
          facts.method = Method::kGet;
          facts.list_request = IsTableListTarget("/api/now/v1/table/incident?sysparm_limit=5");
          facts.request_sent = true;
          facts.http_status = 404;
          facts.parsed = &r;
          Verdict v = Classify(facts);
          EXPECT_EQ(v.klass, OutcomeClass::kOk);
          EXPECT_TRUE(v.empty_list);
        }}},
      {"18-oauth-token-success.json",
       {0, BodyKind::kOther, OutcomeClass::kOk, false,
        [](const Fixture& f, const TableResponse&, const Verdict&) {
          auto token = ParseTokenAnswer(f.response);
          ASSERT_TRUE(token.ok()) << token.status().ToString();
          EXPECT_EQ(token->access_token, "REDACTED");
          EXPECT_EQ(token->refresh_token, "REDACTED");
          EXPECT_EQ(token->expires_in_seconds, 1799);
        }}},
      {"19-oauth-token-failure-401.json",
       {0, BodyKind::kError, OutcomeClass::kUnauthorized, false,
        [](const Fixture& f, const TableResponse& r, const Verdict&) {
          EXPECT_EQ(r.error_message, "server_error");
          auto token = ParseTokenAnswer(f.response);
          ASSERT_FALSE(token.ok());
          EXPECT_EQ(token.status().code(), StatusCode::kPermissionDenied);
          EXPECT_NE(token.status().message().find("access_denied"), std::string::npos);
        }}},
      {"20-429-rate-limit-docs.json",
       {0, BodyKind::kError, OutcomeClass::kRetryable, true,
        [](const Fixture&, const TableResponse& r, const Verdict& v) {
          EXPECT_TRUE(v.throttled);
          EXPECT_FALSE(r.retry_after_ms.has_value()) << "the docs' placeholder is no number";
          EXPECT_NE(v.message.find("Rate limit exceeded"), std::string::npos);
        }}},
      {"21-batch-response-docs.json",
       {0, BodyKind::kOther, OutcomeClass::kOk, false,
        [](const Fixture&, const TableResponse& r, const Verdict&) {
          EXPECT_TRUE(r.record.contains("serviced_requests"));
        }}},
      {"22-error-invalid-table.json",
       // Status not recorded; public notes agree on 400.
       {400, BodyKind::kError, OutcomeClass::kPermanent, false,
        [](const Fixture&, const TableResponse& r, const Verdict& v) {
          EXPECT_EQ(r.error_message, "Invalid table ss");
          EXPECT_EQ(r.error_detail, "");
          EXPECT_EQ(v.message, "HTTP 400: Invalid table ss");
        }}},
  };
  return *table;
}

TEST(FixturesTest, EveryRecordedAnswerIsParsedAndClassified) {
  auto fixtures = testing::LoadAllFixtures();
  ASSERT_GE(fixtures.size(), 22u);
  for (const auto& f : fixtures) {
    SCOPED_TRACE(f.file);
    auto it = Expectations().find(f.file);
    ASSERT_NE(it, Expectations().end()) << "no expectation for fixture " << f.file;
    const Expectation& e = it->second;
    int status = f.status.value_or(e.status_if_missing);
    ASSERT_NE(status, 0) << "fixture without status needs status_if_missing";
    InstanceResponse response = f.response;
    response.status = status;
    TableResponse parsed = ParseTableResponse(response, kNow);
    EXPECT_EQ(BodyKindName(parsed.kind), BodyKindName(e.kind));
    Verdict v = ClassifyFixture(f, parsed, status);
    EXPECT_EQ(OutcomeClassName(v.klass), OutcomeClassName(e.klass)) << v.message;
    EXPECT_EQ(v.retry, e.retry);
    if (e.more) e.more(f, parsed, v);
  }
  EXPECT_EQ(fixtures.size(), Expectations().size()) << "an expectation names a missing file";
}

TEST(FixturesTest, CancelledQueryIsAFailureForEveryMethod) {
  auto f = testing::LoadFixture("15-200-transaction-cancelled-malformed.json");
  TableResponse parsed = ParseTableResponse(f.response, kNow);
  for (Method m : {Method::kPost, Method::kDelete}) {
    AttemptFacts facts{.method = m, .request_sent = true, .http_status = 200, .parsed = &parsed};
    Verdict v = Classify(facts);
    EXPECT_EQ(v.klass, OutcomeClass::kAmbiguous);
    EXPECT_FALSE(v.retry) << "a create or delete is never resent by the client";
  }
  AttemptFacts patch{
      .method = Method::kPatch, .request_sent = true, .http_status = 200, .parsed = &parsed};
  EXPECT_TRUE(Classify(patch).retry);
}

TEST(FixturesTest, ValidJsonWithResultAndErrorIsAFailedList) {
  InstanceResponse r;
  r.status = 200;
  r.body = R"({"result":[{"sys_id":"a"}],"error":{"message":"Transaction cancelled: maximum )"
           R"(execution time exceeded","detail":null},"status":"failure"})";
  TableResponse parsed = ParseTableResponse(r, kNow);
  EXPECT_EQ(parsed.kind, BodyKind::kFailedList);
  EXPECT_EQ(parsed.rows.size(), 1u);
  AttemptFacts facts{.method = Method::kGet,
                     .list_request = true,
                     .request_sent = true,
                     .http_status = 200,
                     .parsed = &parsed};
  Verdict v = Classify(facts);
  EXPECT_EQ(v.klass, OutcomeClass::kRetryable);
  EXPECT_TRUE(v.retry);
}

}  // namespace
}  // namespace snowcar::servicenow
