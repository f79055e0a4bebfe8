// SPDX-License-Identifier: Apache-2.0
// The error path's records: error class names, the DLQ record with its context headers, and the
// reporter records with masked, capped excerpts.
#include "snowcar/sink/commands/failure.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "command_test_util.h"
#include "snowcar/common/redact.h"

namespace snowcar::sink {
namespace {

namespace json = boost::json;
using ::testing::HasSubstr;
using testing::kId1;
using ::testing::Not;

kafka::InRecord Original() {
  kafka::InRecord r = testing::Record(R"({"short_description":"x"})", std::string(kId1),
                                      {{"snow.operation", "PATCH"}, {"trace", std::nullopt}});
  r.topic = "commands";
  r.partition = 3;
  r.offset = 42;
  r.timestamp_ms = 1700000000123;
  return r;
}

Failure APermissionFailure() {
  Failure f;
  f.klass = ErrorClass::kPermission;
  f.message = "403 from PATCH incident";
  f.http_status = 403;
  f.attempts = 1;
  f.request_id = "req-1";
  f.response_excerpt = R"({"error":{"message":"User Not Authorized"}})";
  return f;
}

std::string HeaderValue(const kafka::OutRecord& r, std::string_view key) {
  const kafka::Header* h = kafka::FindHeader(r.headers, key);
  if (h == nullptr) return "<missing>";
  return h->value.value_or("<null>");
}

class FailureTest : public ::testing::Test {
 protected:
  void TearDown() override { redact::ClearForTest(); }
};

TEST_F(FailureTest, ErrorClassNames) {
  EXPECT_EQ(ErrorClassName(ErrorClass::kPermission), "PERMISSION");
  EXPECT_EQ(ErrorClassName(ErrorClass::kNotFound), "NOT_FOUND");
  EXPECT_EQ(ErrorClassName(ErrorClass::kConflict), "CONFLICT");
  EXPECT_EQ(ErrorClassName(ErrorClass::kRecordError), "RECORD_ERROR");
  EXPECT_EQ(ErrorClassName(ErrorClass::kAmbiguous), "AMBIGUOUS");
  EXPECT_EQ(ErrorClassName(ErrorClass::kRetriesExhausted), "RETRIES_EXHAUSTED");
}

TEST_F(FailureTest, DlqKeepsTheOriginalAndAddsContext) {
  const kafka::InRecord in = Original();
  const kafka::OutRecord out = BuildDlqRecord(in, APermissionFailure(), "dlq");
  EXPECT_EQ(out.topic, "dlq");
  EXPECT_EQ(out.partition, -1);
  EXPECT_EQ(out.key, in.key);
  EXPECT_EQ(out.value, in.value);
  EXPECT_EQ(out.timestamp_ms, in.timestamp_ms);
  ASSERT_GE(out.headers.size(), in.headers.size());
  EXPECT_EQ(out.headers[0], in.headers[0]);
  EXPECT_EQ(out.headers[1], in.headers[1]) << "a null header stays null";
  EXPECT_EQ(HeaderValue(out, "__connect.errors.topic"), "commands");
  EXPECT_EQ(HeaderValue(out, "__connect.errors.partition"), "3");
  EXPECT_EQ(HeaderValue(out, "__connect.errors.offset"), "42");
  EXPECT_EQ(HeaderValue(out, "__connect.errors.class.name"), "PERMISSION");
  EXPECT_EQ(HeaderValue(out, "__connect.errors.exception.message"), "403 from PATCH incident");
  EXPECT_EQ(HeaderValue(out, "snow.error.class"), "PERMISSION");
  EXPECT_EQ(HeaderValue(out, "snow.error.http.status"), "403");
  EXPECT_EQ(HeaderValue(out, "snow.error.message"), "403 from PATCH incident");
  EXPECT_EQ(HeaderValue(out, "snow.error.attempts"), "1");
  EXPECT_EQ(HeaderValue(out, "snow.error.request.id"), "req-1");
}

TEST_F(FailureTest, DlqOfARecordErrorWithoutAnswer) {
  Failure f;
  f.message = "the record value is not valid JSON (syntax error at byte 0)";
  kafka::InRecord in = Original();
  in.value.reset();
  in.timestamp_ms = -1;
  const kafka::OutRecord out = BuildDlqRecord(in, f, "dlq");
  EXPECT_FALSE(out.value.has_value()) << "a null value stays null";
  EXPECT_EQ(out.timestamp_ms, 0);
  EXPECT_EQ(HeaderValue(out, "snow.error.class"), "RECORD_ERROR");
  EXPECT_EQ(HeaderValue(out, "snow.error.attempts"), "0");
  EXPECT_EQ(HeaderValue(out, "snow.error.http.status"), "<missing>");
  EXPECT_EQ(HeaderValue(out, "snow.error.request.id"), "<missing>");
}

TEST_F(FailureTest, DlqMasksSecretsInTheMessage) {
  redact::RegisterSecret("hunter2-secret");
  Failure f = APermissionFailure();
  f.message = "answer echoed hunter2-secret and Authorization: Bearer abc.def.ghi";
  const kafka::OutRecord out = BuildDlqRecord(Original(), f, "dlq");
  for (const auto& h : out.headers) {
    EXPECT_THAT(h.value.value_or(""), Not(HasSubstr("hunter2-secret"))) << h.key;
    EXPECT_THAT(h.value.value_or(""), Not(HasSubstr("abc.def.ghi"))) << h.key;
  }
}

TEST_F(FailureTest, SuccessReport) {
  Applied a;
  a.operation = Operation::kPatch;
  a.table = "incident";
  a.sys_id = kId1;
  a.http_status = 200;
  a.request_id = "req-9";
  const kafka::OutRecord out = BuildSuccessReport(Original(), a, "ok");
  EXPECT_EQ(out.topic, "ok");
  EXPECT_EQ(out.key, std::optional<std::string>(kId1));
  ASSERT_TRUE(out.value.has_value());
  EXPECT_EQ(json::parse(*out.value),
            json::parse(R"({"result":"success","operation":"PATCH","table":"incident",)"
                        R"("sys_id":"0123456789abcdef0123456789abcdef","status":200,)"
                        R"("request_id":"req-9","source":{"topic":"commands","partition":3,)"
                        R"("offset":42}})"));
}

TEST_F(FailureTest, SuccessReportWithReportedFieldsAndBody) {
  Applied a;
  a.unknown_fields = {"prio", "zzz"};
  a.request_body = R"({"short_description":"x","password":"p4ss-word"})";
  const json::value v = json::parse(*BuildSuccessReport(Original(), a, "ok").value);
  EXPECT_EQ(v.at("unknown_fields"), json::parse(R"(["prio","zzz"])"));
  const std::string body(v.at("request_body").as_string());
  EXPECT_THAT(body, HasSubstr("short_description"));
  EXPECT_THAT(body, Not(HasSubstr("p4ss-word")));
  Applied plain;
  const json::value p = json::parse(*BuildSuccessReport(Original(), plain, "ok").value);
  EXPECT_FALSE(p.as_object().contains("request_body"));
  EXPECT_FALSE(p.as_object().contains("unknown_fields"));
}

TEST_F(FailureTest, ErrorReportWithCommand) {
  Command c;
  c.table = "incident";
  c.operation = Operation::kPatch;
  c.sys_id = kId1;
  Failure f = APermissionFailure();
  f.attempts = 3;
  const kafka::OutRecord out = BuildErrorReport(Original(), c, f, "bad");
  EXPECT_EQ(out.topic, "bad");
  EXPECT_EQ(out.key, Original().key);
  EXPECT_EQ(
      json::parse(*out.value),
      json::parse(R"({"result":"error","operation":"PATCH","table":"incident",)"
                  R"("sys_id":"0123456789abcdef0123456789abcdef","status":403,)"
                  R"("request_id":"req-1","source":{"topic":"commands","partition":3,)"
                  R"("offset":42},"error_class":"PERMISSION","attempts":3,"retries":2,)"
                  R"("message":"403 from PATCH incident",)"
                  R"("response_excerpt":"{\"error\":{\"message\":\"User Not Authorized\"}}"})"));
}

TEST_F(FailureTest, ErrorReportWithoutCommand) {
  Failure f;
  f.message = "header 'snow.table' is missing";
  const json::value v = json::parse(*BuildErrorReport(Original(), std::nullopt, f, "bad").value);
  EXPECT_TRUE(v.at("operation").is_null());
  EXPECT_TRUE(v.at("table").is_null());
  EXPECT_TRUE(v.at("sys_id").is_null());
  EXPECT_TRUE(v.at("status").is_null());
  EXPECT_TRUE(v.at("request_id").is_null());
  EXPECT_EQ(v.at("error_class"), "RECORD_ERROR");
  EXPECT_EQ(v.at("attempts"), 0);
  EXPECT_EQ(v.at("retries"), 0);
  EXPECT_EQ(v.at("response_excerpt"), "");
  EXPECT_FALSE(v.as_object().contains("request_body"));
}

TEST_F(FailureTest, ExcerptIsMaskedAndCappedAt500Characters) {
  redact::RegisterSecret("s3cr3t-client-secret");
  Failure f = APermissionFailure();
  f.response_excerpt = "error: s3cr3t-client-secret Bearer tok.en.value " + std::string(2000, 'y');
  json::value v = json::parse(*BuildErrorReport(Original(), std::nullopt, f, "bad").value);
  std::string excerpt(v.at("response_excerpt").as_string());
  EXPECT_EQ(excerpt.size(), 500U);
  EXPECT_THAT(excerpt, Not(HasSubstr("s3cr3t-client-secret")));
  EXPECT_THAT(excerpt, Not(HasSubstr("tok.en.value")));
  EXPECT_THAT(excerpt, HasSubstr("[redacted]"));

  // Characters, not bytes: a multi-byte character is never cut in half.
  f.response_excerpt.clear();
  for (int i = 0; i < 600; ++i) f.response_excerpt += "\xc3\xa9";  // é
  v = json::parse(*BuildErrorReport(Original(), std::nullopt, f, "bad").value);
  excerpt = std::string(v.at("response_excerpt").as_string());
  EXPECT_EQ(excerpt.size(), 1000U);
}

TEST_F(FailureTest, ErrorReportRequestBodyOnlyWhenGiven) {
  Failure f = APermissionFailure();
  f.request_body = R"({"short_description":"x"})";
  const json::value v = json::parse(*BuildErrorReport(Original(), std::nullopt, f, "bad").value);
  EXPECT_EQ(v.at("request_body"), R"({"short_description":"x"})");
}

}  // namespace
}  // namespace snowcar::sink
