// SPDX-License-Identifier: Apache-2.0
// The classification table of reference-behaviour §4, row by row.
#include "snowcar/servicenow/classify.h"

#include <curl/curl.h>
#include <gtest/gtest.h>

#include "snowcar/common/redact.h"

namespace snowcar::servicenow {
namespace {

TableResponse ErrorBody(std::string message, std::string detail = "") {
  TableResponse r;
  r.kind = BodyKind::kError;
  r.error_message = std::move(message);
  r.error_detail = std::move(detail);
  return r;
}

Verdict Http(Method m, int status, const TableResponse& body, bool list = false) {
  AttemptFacts f;
  f.method = m;
  f.list_request = list;
  f.request_sent = true;
  f.http_status = status;
  f.parsed = &body;
  return Classify(f);
}

Verdict Wire(Method m, CURLcode code, bool sent) {
  AttemptFacts f;
  f.method = m;
  f.curl_code = code;
  f.request_sent = sent;
  return Classify(f);
}

TEST(ClassifyTest, RetryableStatusesForEveryMethod) {
  TableResponse body = ErrorBody("busy");
  for (int status : {408, 425, 429, 500, 503}) {
    for (Method m : {Method::kGet, Method::kPost, Method::kPatch, Method::kPut, Method::kDelete}) {
      Verdict v = Http(m, status, body);
      EXPECT_EQ(v.klass, OutcomeClass::kRetryable) << status << " " << MethodName(m);
      EXPECT_TRUE(v.retry) << status;
      EXPECT_EQ(v.throttled, status == 429);
    }
  }
}

TEST(ClassifyTest, GatewayErrorsAreAmbiguousForCreateAndDelete) {
  TableResponse none;
  for (int status : {502, 504}) {
    EXPECT_TRUE(Http(Method::kGet, status, none).retry);
    EXPECT_TRUE(Http(Method::kPatch, status, none).retry);
    Verdict post = Http(Method::kPost, status, none);
    EXPECT_EQ(post.klass, OutcomeClass::kAmbiguous);
    EXPECT_FALSE(post.retry);
    EXPECT_EQ(Http(Method::kDelete, status, none).klass, OutcomeClass::kAmbiguous);
  }
}

// 202 Accepted only says the instance queued the request: never a confirmed write.
TEST(ClassifyTest, AcceptedIsNoConfirmedWrite) {
  TableResponse none;
  TableResponse row;
  row.kind = BodyKind::kRecord;
  for (const TableResponse* body : {&none, &row}) {
    EXPECT_EQ(Http(Method::kGet, 202, *body).klass, OutcomeClass::kRetryable);
    EXPECT_TRUE(Http(Method::kGet, 202, *body).retry);
    for (Method m : {Method::kPatch, Method::kPut}) {
      EXPECT_EQ(Http(m, 202, *body).klass, OutcomeClass::kAmbiguous) << MethodName(m);
      EXPECT_TRUE(Http(m, 202, *body).retry) << MethodName(m);
    }
    for (Method m : {Method::kPost, Method::kDelete}) {
      EXPECT_EQ(Http(m, 202, *body).klass, OutcomeClass::kAmbiguous) << MethodName(m);
      EXPECT_FALSE(Http(m, 202, *body).retry) << MethodName(m);
    }
  }
  EXPECT_NE(Http(Method::kPatch, 202, none).message.find("Accepted"), std::string::npos);
}

TEST(ClassifyTest, PermanentStatuses) {
  TableResponse body = ErrorBody("Invalid table ss");
  for (int status : {400, 405, 410, 413, 415, 422, 501, 301, 302}) {
    Verdict v = Http(Method::kGet, status, body);
    EXPECT_EQ(v.klass, OutcomeClass::kPermanent) << status;
    EXPECT_FALSE(v.retry) << status;
  }
  EXPECT_EQ(Http(Method::kGet, 400, body).message, "HTTP 400: Invalid table ss");
}

TEST(ClassifyTest, AuthAclAndMissing) {
  TableResponse body = ErrorBody("User Not Authenticated", "Required to provide Auth information");
  Verdict v = Http(Method::kGet, 401, body);
  EXPECT_EQ(v.klass, OutcomeClass::kUnauthorized);
  EXPECT_TRUE(v.reauthenticate);
  EXPECT_FALSE(v.retry);
  EXPECT_EQ(v.message, "HTTP 401: User Not Authenticated: Required to provide Auth information");
  EXPECT_EQ(Http(Method::kPatch, 403, ErrorBody("Insufficient rights")).klass,
            OutcomeClass::kPermission);
  EXPECT_EQ(Http(Method::kPatch, 404, ErrorBody("No Record found")).klass, OutcomeClass::kNotFound);
  EXPECT_EQ(Http(Method::kDelete, 404, ErrorBody("No Record found")).klass,
            OutcomeClass::kNotFound);
}

TEST(ClassifyTest, V1EmptyListIsNotAnError) {
  Verdict v = Http(Method::kGet, 404, ErrorBody("No Record found"), /*list=*/true);
  EXPECT_EQ(v.klass, OutcomeClass::kOk);
  EXPECT_TRUE(v.empty_list);
  // Some other 404 on the same path is still an error.
  v = Http(Method::kGet, 404, ErrorBody("The resource you requested is not part of the API."),
           /*list=*/true);
  EXPECT_EQ(v.klass, OutcomeClass::kNotFound);
  // A GET of one record that is missing is NOT_FOUND.
  EXPECT_EQ(Http(Method::kGet, 404, ErrorBody("No Record found")).klass, OutcomeClass::kNotFound);
}

TEST(ClassifyTest, ConflictRetriedOnlyWhenItSaysLockOrBusy) {
  for (const char* text :
       {"Record is locked by another transaction", "Server BUSY", "Please try again later"}) {
    Verdict v = Http(Method::kPatch, 409, ErrorBody(text));
    EXPECT_EQ(v.klass, OutcomeClass::kRetryable) << text;
    EXPECT_TRUE(v.retry);
  }
  Verdict v = Http(Method::kPost, 409, ErrorBody("Unique key violation"));
  EXPECT_EQ(v.klass, OutcomeClass::kConflict);
  EXPECT_FALSE(v.retry);
}

TEST(ClassifyTest, TransportBeforeSendingIsRetryable) {
  for (CURLcode code :
       {CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_RESOLVE_HOST}) {
    for (Method m : {Method::kGet, Method::kPost, Method::kDelete}) {
      Verdict v = Wire(m, code, /*sent=*/false);
      EXPECT_EQ(v.klass, OutcomeClass::kRetryable) << code;
      EXPECT_TRUE(v.retry);
    }
  }
}

TEST(ClassifyTest, SentWithoutAnswerIsAmbiguous) {
  for (CURLcode code :
       {CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_OPERATION_TIMEDOUT}) {
    Verdict get = Wire(Method::kGet, code, true);
    EXPECT_EQ(get.klass, OutcomeClass::kRetryable);
    EXPECT_TRUE(get.retry);
    for (Method m : {Method::kPatch, Method::kPut}) {
      Verdict v = Wire(m, code, true);
      EXPECT_EQ(v.klass, OutcomeClass::kAmbiguous);
      EXPECT_TRUE(v.retry) << "idempotent writes are resent";
    }
    for (Method m : {Method::kPost, Method::kDelete}) {
      Verdict v = Wire(m, code, true);
      EXPECT_EQ(v.klass, OutcomeClass::kAmbiguous);
      EXPECT_FALSE(v.retry) << "the caller decides on creates and deletes";
    }
  }
}

TEST(ClassifyTest, SetupErrorsArePermanent) {
  EXPECT_EQ(Wire(Method::kGet, CURLE_PEER_FAILED_VERIFICATION, false).klass,
            OutcomeClass::kPermanent);
  EXPECT_EQ(Wire(Method::kGet, CURLE_URL_MALFORMAT, false).klass, OutcomeClass::kPermanent);
}

// Out of memory is this process's trouble: not a verdict on the request, nor on the
// instance. Before sending it is retried; once sent it is a lost answer like any other.
TEST(ClassifyTest, OutOfMemoryIsTransientNotPermanent) {
  for (Method m : {Method::kGet, Method::kPost, Method::kPatch, Method::kDelete}) {
    Verdict v = Wire(m, CURLE_OUT_OF_MEMORY, /*sent=*/false);
    EXPECT_EQ(v.klass, OutcomeClass::kRetryable);
    EXPECT_TRUE(v.retry);
    EXPECT_FALSE(v.instance_unreachable);
  }
  EXPECT_EQ(Wire(Method::kGet, CURLE_OUT_OF_MEMORY, true).klass, OutcomeClass::kRetryable);
  EXPECT_EQ(Wire(Method::kPatch, CURLE_OUT_OF_MEMORY, true).klass, OutcomeClass::kAmbiguous);
  EXPECT_TRUE(Wire(Method::kPatch, CURLE_OUT_OF_MEMORY, true).retry);
  EXPECT_EQ(Wire(Method::kPost, CURLE_OUT_OF_MEMORY, true).klass, OutcomeClass::kAmbiguous);
}

// What concerns the whole instance (no connection, TLS, refused credentials) is marked so;
// what concerns one request (its status, a lost answer) is not.
TEST(ClassifyTest, OnlyInstanceWideCausesMarkTheInstanceUnreachable) {
  for (CURLcode code : {CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT,
                        CURLE_SSL_CONNECT_ERROR}) {
    EXPECT_TRUE(Wire(Method::kGet, code, /*sent=*/false).instance_unreachable) << code;
  }
  EXPECT_TRUE(Wire(Method::kGet, CURLE_PEER_FAILED_VERIFICATION, false).instance_unreachable);
  EXPECT_TRUE(Http(Method::kGet, 401, ErrorBody("User Not Authenticated")).instance_unreachable);

  EXPECT_FALSE(Wire(Method::kGet, CURLE_RECV_ERROR, /*sent=*/true).instance_unreachable);
  EXPECT_FALSE(Wire(Method::kPost, CURLE_OPERATION_TIMEDOUT, true).instance_unreachable);
  TableResponse body = ErrorBody("x");
  for (int status : {400, 403, 404, 409, 429, 500, 502, 503}) {
    EXPECT_FALSE(Http(Method::kGet, status, body).instance_unreachable) << status;
  }
  TableResponse list;
  list.kind = BodyKind::kList;
  EXPECT_FALSE(Http(Method::kGet, 200, list).instance_unreachable);
}

TEST(ClassifyTest, TooLargeIsPermanentEvenOnGet) {
  AttemptFacts f;
  f.method = Method::kGet;
  f.curl_code = CURLE_WRITE_ERROR;
  f.request_sent = true;
  f.too_large = true;
  f.http_status = 200;
  Verdict v = Classify(f);
  EXPECT_EQ(v.klass, OutcomeClass::kPermanent);
  EXPECT_FALSE(v.retry);
  EXPECT_NE(v.message.find("snow.http.max.response.bytes"), std::string::npos);
}

TEST(ClassifyTest, MalformedBodies) {
  TableResponse bad;
  bad.kind = BodyKind::kMalformed;
  bad.malformed_reason = "cut short";
  EXPECT_TRUE(Http(Method::kGet, 200, bad).retry);
  EXPECT_EQ(Http(Method::kPost, 201, bad).klass, OutcomeClass::kAmbiguous);
  EXPECT_FALSE(Http(Method::kPost, 201, bad).retry);
  TableResponse empty;  // a write answered with no body is fine; a read is not
  EXPECT_EQ(Http(Method::kDelete, 204, empty).klass, OutcomeClass::kOk);
  EXPECT_EQ(Http(Method::kPatch, 200, empty).klass, OutcomeClass::kOk);
  EXPECT_EQ(Http(Method::kGet, 200, empty).klass, OutcomeClass::kRetryable);
}

TEST(ClassifyTest, MessagesAreMasked) {
  redact::RegisterSecret("hunter2-secret-value");
  Verdict v = Http(Method::kGet, 400, ErrorBody("bad password hunter2-secret-value"));
  EXPECT_EQ(v.message.find("hunter2-secret-value"), std::string::npos) << v.message;
  redact::ClearForTest();
}

TEST(ClassifyTest, StatusCodesKeepTheRetryMeaning) {
  EXPECT_TRUE(Status(StatusCodeFor(OutcomeClass::kRetryable), "x").retriable());
  EXPECT_FALSE(Status(StatusCodeFor(OutcomeClass::kAmbiguous), "x").retriable());
  EXPECT_FALSE(Status(StatusCodeFor(OutcomeClass::kPermanent), "x").retriable());
  EXPECT_EQ(StatusCodeFor(OutcomeClass::kNotFound), StatusCode::kNotFound);
  EXPECT_EQ(StatusCodeFor(OutcomeClass::kOk), StatusCode::kOk);
}

}  // namespace
}  // namespace snowcar::servicenow
