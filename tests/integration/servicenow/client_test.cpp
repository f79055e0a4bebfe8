// SPDX-License-Identifier: Apache-2.0
// The client against a scripted server over real TCP on 127.0.0.1: retries, waits,
// ambiguity, size cap, request ids, concurrency, connection reuse, shutdown.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <mutex>
#include <regex>

#include "client_harness.h"
#include "script_server.h"
#include "snowcar/common/time.h"
#include "snowcar/common/version.h"
#include "support/refusing_port.h"

namespace snowcar::servicenow::testing {
namespace {

using namespace std::chrono_literals;

constexpr char kList[] = R"({"result":[{"sys_id":"a1","number":"INC1"},{"sys_id":"b2"}]})";

int64_t MillisBetween(const SeenRequest& a, const SeenRequest& b) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(b.arrived - a.arrived).count();
}

JitterSource ZeroJitter() {
  return [](int64_t) { return 0; };
}

TEST(ClientTest, ListRoundTripWithTheRightHeaders) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    Reply r = Json(200, kList);
    r.headers.emplace_back("X-Total-Count", "2");
    r.headers.emplace_back("Link",
                           "<http://x/api/now/table/incident?sysparm_offset=2>;rel=\"next\"");
    return r;
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()));
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident?sysparm_limit=2"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.response.kind, BodyKind::kList);
  ASSERT_EQ(r.response.rows.size(), 2u);
  EXPECT_EQ(r.response.rows[0].as_object().at("number").as_string(), "INC1");
  EXPECT_EQ(r.response.total_count, 2);
  EXPECT_TRUE(FindLink(r.response.links, "next").has_value());

  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].method, "GET");
  EXPECT_EQ(seen[0].target, "/api/now/table/incident?sysparm_limit=2");
  EXPECT_EQ(seen[0].Header("accept"), "application/json");
  EXPECT_EQ(seen[0].Header("user-agent"), "snowcar/" + std::string(SnowcarVersion()));
  EXPECT_NE(seen[0].Header("accept-encoding").find("gzip"), std::string::npos);
  // base64("svc-user:Pa55-word-for-tests")
  EXPECT_EQ(seen[0].Header("authorization"), "Basic c3ZjLXVzZXI6UGE1NS13b3JkLWZvci10ZXN0cw==");
  EXPECT_TRUE(std::regex_match(seen[0].Header("x-request-id"), std::regex("[0-9a-f]{32}")));
  EXPECT_EQ(r.request_id, seen[0].Header("x-request-id"));
}

TEST(ClientTest, WritesCarryTheirBodyAndMethod) {
  IoThreads io;
  ScriptServer server([](const SeenRequest& req, int) {
    if (req.method == "DELETE") return Reply{204, {}, "", 0, Reply::Action::kAnswer};
    Reply r =
        Json(req.method == "POST" ? 201 : 200,
             R"({"result":{"sys_id":"0123456789abcdef0123456789abcdef","short_description":"x"}})");
    if (req.method == "POST") {
      r.headers.emplace_back("Location",
                             "http://x/api/now/table/incident/0123456789abcdef0123456789abcdef");
    }
    return r;
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()));
  const std::string record = "/api/now/table/incident/0123456789abcdef0123456789abcdef";
  CallResult post = SendAndWait(*client, io.io(),
                                WithBody(Method::kPost, "/api/now/table/incident", R"({"a":"1"})"));
  ASSERT_TRUE(post.ok()) << post.ToStatus().ToString();
  EXPECT_EQ(post.http_status, 201);
  EXPECT_EQ(post.response.kind, BodyKind::kRecord);
  EXPECT_TRUE(post.response.location.has_value());
  CallResult patch =
      SendAndWait(*client, io.io(), WithBody(Method::kPatch, record, R"({"b":"2"})"));
  ASSERT_TRUE(patch.ok());
  CallResult put = SendAndWait(*client, io.io(), WithBody(Method::kPut, record, R"({"c":"3"})"));
  ASSERT_TRUE(put.ok());
  InstanceRequest del;
  del.method = Method::kDelete;
  del.target = record;
  CallResult gone = SendAndWait(*client, io.io(), del);
  ASSERT_TRUE(gone.ok()) << gone.ToStatus().ToString();
  EXPECT_EQ(gone.http_status, 204);
  EXPECT_EQ(gone.response.kind, BodyKind::kEmpty);

  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].body, R"({"a":"1"})");
  EXPECT_EQ(seen[0].Header("content-type"), "application/json");
  EXPECT_EQ(seen[1].method, "PATCH");
  EXPECT_EQ(seen[1].body, R"({"b":"2"})");
  EXPECT_EQ(seen[2].method, "PUT");
  EXPECT_EQ(seen[3].method, "DELETE");
  EXPECT_EQ(seen[3].body, "");
  // PATCH and PUT reuse the POST's connection; POST and DELETE always open their own, so
  // libcurl can never silently re-send them on a stale one (curl_transfer.cpp).
  EXPECT_EQ(server.connections(), 2) << "POST's connection reused by PATCH and PUT, DELETE fresh";
}

TEST(ClientTest, ServerErrorsAreRetriedWithTheSameRequestId) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int i) {
    if (i == 0)
      return Json(503, R"({"error":{"message":"busy","detail":null},"status":"failure"})");
    if (i == 1) return Json(500, "");
    return Json(200, kList);
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()), {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 3);
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_FALSE(seen[0].Header("x-request-id").empty());
  EXPECT_EQ(seen[1].Header("x-request-id"), seen[0].Header("x-request-id"));
  EXPECT_EQ(seen[2].Header("x-request-id"), seen[0].Header("x-request-id"));
  EXPECT_EQ(client->stats().retries, 2);
  EXPECT_EQ(client->stats().failed, 2) << "the 503 and the 500";
  EXPECT_EQ(client->stats().answered_ok, 1);
  EXPECT_EQ(client->stats().unreachable, 0);
}

TEST(ClientTest, CallerRequestIdIsKept) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) { return Json(200, kList); });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()));
  InstanceRequest req = Get("/api/now/table/incident");
  req.request_id = "sink-lane-3-offset-42";
  CallResult r = SendAndWait(*client, io.io(), req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(server.requests().at(0).Header("x-request-id"), "sink-lane-3-offset-42");
}

TEST(ClientTest, ExhaustedRetriesReportTheAttemptCount) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    return Json(502, R"({"error":{"message":"Bad gateway","detail":" "},"status":"failure"})");
  });
  server.Start();
  ClientOptions o = BasicOptions(server.base_url());
  o.retry.max_attempts = 3;
  auto client = MakeClient(io.io(), o, {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  EXPECT_EQ(r.klass, OutcomeClass::kRetryable);
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.http_status, 502);
  EXPECT_EQ(server.requests().size(), 3u);
  Status s = r.ToStatus();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("after 3 attempts"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Bad gateway"), std::string::npos) << s.message();
}

TEST(ClientTest, RetryAfterIsHonouredAndHalvesConcurrency) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int i) {
    if (i == 0) {
      Reply r = Json(
          429, R"({"error":{"message":"Rate limit exceeded","detail":"x"},"status":"failure"})");
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    return Json(200, kList);
  });
  server.Start();
  std::atomic<int> draws{0};
  ClientOptions o = BasicOptions(server.base_url());
  o.max_concurrent_requests = 8;
  auto client = MakeClient(io.io(), o, {.jitter = [&draws](int64_t) {
                             ++draws;
                             return int64_t{0};
                           }});
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 2);
  auto seen = server.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_GE(MillisBetween(seen[0], seen[1]), 1000) << "Retry-After: 1 means a second";
  EXPECT_LT(MillisBetween(seen[0], seen[1]), 5000);
  EXPECT_EQ(draws.load(), 0) << "the instance's wait replaces the random one";
  EXPECT_EQ(client->stats().limit, 4) << "a 429 halves the limit";
  EXPECT_EQ(client->stats().throttled, 1);
  EXPECT_EQ(client->stats().answered_ok, 1);
}

TEST(ClientTest, ThrottledClientKeepsFewerRequestsInFlight) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int i) {
    if (i < 2) {
      Reply r = Json(429, R"({"error":{"message":"Rate limit exceeded"},"status":"failure"})");
      r.headers.emplace_back("Retry-After", "0");
      return r;
    }
    Reply ok = Json(200, kList);
    ok.delay_ms = 30;
    return ok;
  });
  server.Start();
  ClientOptions o = BasicOptions(server.base_url());
  o.max_concurrent_requests = 8;
  auto client = MakeClient(io.io(), o, {.jitter = ZeroJitter()});
  // One call takes two 429s: 8 -> 4 -> 2.
  ASSERT_TRUE(SendAndWait(*client, io.io(), Get("/api/now/table/incident")).ok());
  EXPECT_EQ(client->stats().limit, 2);
  server.ResetMaxConcurrent();
  std::vector<InstanceRequest> many(12, Get("/api/now/table/incident"));
  for (const auto& r : SendAllAndWait(*client, io.io(), many)) EXPECT_TRUE(r.ok());
  EXPECT_LE(server.max_concurrent(), 2) << "never more than the halved limit";
  EXPECT_LE(client->stats().limit, 2) << "13 successes are far from the 50 that add a permit";
}

TEST(ClientTest, ConcurrencyNeverAboveTheLimit) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    Reply r = Json(200, kList);
    r.delay_ms = 40;
    return r;
  });
  server.Start();
  ClientOptions o = BasicOptions(server.base_url());
  o.max_concurrent_requests = 3;
  auto client = MakeClient(io.io(), o);
  std::vector<InstanceRequest> many(24, Get("/api/now/table/incident"));
  auto results = SendAllAndWait(*client, io.io(), many);
  for (const auto& r : results) EXPECT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_LE(server.max_concurrent(), 3);
  EXPECT_GE(server.max_concurrent(), 2) << "calls do run in parallel";
  EXPECT_LE(client->stats().max_in_flight, 3);
  EXPECT_LE(server.connections(), 4) << "connections are reused, not one per call";
}

TEST(ClientTest, RetryAfterBeyondTheBudgetEndsTheCall) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    Reply r = Json(429, R"({"error":{"message":"Rate limit exceeded"},"status":"failure"})");
    r.headers.emplace_back("Retry-After", "30");
    return r;
  });
  server.Start();
  ClientOptions o = BasicOptions(server.base_url());
  o.retry.max_elapsed_ms = 2000;
  auto client = MakeClient(io.io(), o, {.jitter = ZeroJitter()});
  const auto start = std::chrono::steady_clock::now();
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms) << "no pointless wait";
  EXPECT_EQ(r.klass, OutcomeClass::kRetryable);
  EXPECT_EQ(r.http_status, 429);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_NE(r.message.find("gave up after 1 attempts"), std::string::npos) << r.message;
}

TEST(ClientTest, ProxyIsUsedWithItsCredentials) {
  IoThreads io;
  // The scripted server plays the proxy: a plain-HTTP proxy gets the absolute URL.
  ScriptServer proxy([](const SeenRequest&, int) { return Json(200, kList); });
  proxy.Start();
  ClientOptions o = BasicOptions("http://instance.invalid");
  o.proxy_url = proxy.base_url();
  o.proxy_username = "proxy-user";
  o.proxy_password = "proxy-Pa55";
  auto client = MakeClient(io.io(), o);
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident?sysparm_limit=1"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  auto seen = proxy.requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].target, "http://instance.invalid/api/now/table/incident?sysparm_limit=1");
  // base64("proxy-user:proxy-Pa55")
  EXPECT_EQ(seen[0].Header("proxy-authorization"), "Basic cHJveHktdXNlcjpwcm94eS1QYTU1");
}

TEST(ClientTest, DroppedGetIsRetried) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int i) {
    Reply r = Json(200, kList);
    if (i == 0) r.action = Reply::Action::kCloseMidBody;
    return r;
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()), {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.response.rows.size(), 2u);
}

TEST(ClientTest, DroppedPostIsAmbiguousAndNotResent) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    Reply r = Json(201, R"({"result":{"sys_id":"x"}})");
    r.action = Reply::Action::kCloseWithoutAnswer;
    return r;
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()), {.jitter = ZeroJitter()});
  CallResult r =
      SendAndWait(*client, io.io(), WithBody(Method::kPost, "/api/now/table/incident", "{}"));
  EXPECT_EQ(r.klass, OutcomeClass::kAmbiguous) << r.message;
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.http_status, 0);
  EXPECT_EQ(server.requests().size(), 1u) << "a create is never resent by the client";
  EXPECT_FALSE(r.ToStatus().retriable());
}

TEST(ClientTest, DroppedDeleteIsAmbiguousDroppedPatchIsResent) {
  IoThreads io;
  std::atomic<int> patches{0};
  ScriptServer server([&patches](const SeenRequest& req, int) {
    Reply r = Json(200, R"({"result":{"sys_id":"x"}})");
    if (req.method == "DELETE" || (req.method == "PATCH" && patches++ == 0)) {
      r.action = Reply::Action::kCloseWithoutAnswer;
    }
    return r;
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()), {.jitter = ZeroJitter()});
  const std::string record = "/api/now/table/incident/0123456789abcdef0123456789abcdef";
  InstanceRequest del;
  del.method = Method::kDelete;
  del.target = record;
  CallResult d = SendAndWait(*client, io.io(), del);
  EXPECT_EQ(d.klass, OutcomeClass::kAmbiguous);
  EXPECT_EQ(d.attempts, 1);
  CallResult p = SendAndWait(*client, io.io(), WithBody(Method::kPatch, record, R"({"a":"b"})"));
  ASSERT_TRUE(p.ok()) << p.ToStatus().ToString();
  EXPECT_EQ(p.attempts, 2);
}

TEST(ClientTest, CancelledQueryBodyIsRetried) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int i) {
    if (i == 0) {
      return Json(200,
                  "{\"result\":[{\"sys_id\":\"a\"},}\"\"],\"error\":{\"message\":\"Transaction "
                  "cancelled: maximum execution time exceeded\",\"detail\":\"x\"},\"status\":"
                  "\"failure\"}");
    }
    return Json(200, kList);
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()), {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/cmdb_ci"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(r.response.rows.size(), 2u);
}

TEST(ClientTest, AnswersOverTheSizeCapArePermanent) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    std::string big = R"({"result":[)";
    for (int i = 0; i < 200; ++i) big += R"({"sys_id":"0123456789abcdef0123456789abcdef"},)";
    big += R"({}]})";
    return Json(200, big);
  });
  server.Start();
  ClientOptions o = BasicOptions(server.base_url());
  o.max_response_bytes = 1024;
  auto client = MakeClient(io.io(), o, {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  EXPECT_EQ(r.klass, OutcomeClass::kPermanent);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_NE(r.message.find("snow.http.max.response.bytes"), std::string::npos) << r.message;
}

TEST(ClientTest, SecondUnauthorizedIsFinal) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    return Json(
        401,
        R"({"error":{"message":"User is not authenticated","detail":"Required to provide Auth information"},"status":"failure"})");
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()), {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  EXPECT_EQ(r.klass, OutcomeClass::kUnauthorized);
  EXPECT_EQ(r.attempts, 2) << "basic credentials are resent once";
  EXPECT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(r.ToStatus().code(), StatusCode::kPermissionDenied);
}

TEST(ClientTest, V1EmptyListIsAnEmptyResult) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    return Json(
        404,
        R"({"error":{"message":"No Record found","detail":"Records not found"},"status":"failure"})");
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()));
  CallResult list =
      SendAndWait(*client, io.io(), Get("/api/now/v1/table/incident?sysparm_limit=5"));
  ASSERT_TRUE(list.ok()) << list.ToStatus().ToString();
  EXPECT_EQ(list.response.kind, BodyKind::kList);
  EXPECT_TRUE(list.response.rows.empty());
  CallResult one = SendAndWait(*client, io.io(),
                               Get("/api/now/v1/table/incident/0123456789abcdef0123456789abcdef"));
  EXPECT_EQ(one.klass, OutcomeClass::kNotFound);
}

TEST(ClientTest, RefusedConnectionIsRetriedThenReported) {
  IoThreads io;
  const testsupport::RefusingPort gone;  // nothing listens there, and no one can bind it
  const std::string dead_url = gone.http_url();
  ClientOptions o = BasicOptions(dead_url);
  o.retry.max_attempts = 3;
  auto client = MakeClient(io.io(), o, {.jitter = ZeroJitter()});
  CallResult r =
      SendAndWait(*client, io.io(), WithBody(Method::kPost, "/api/now/table/incident", "{}"));
  EXPECT_EQ(r.klass, OutcomeClass::kRetryable) << "never sent: safe to retry even a create";
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.http_status, 0);
  // What /metrics shows as snowcar_snow_http_attempts_total{result="unreachable"}.
  const ClientStats stats = client->stats();
  EXPECT_EQ(stats.unreachable, 3);
  EXPECT_EQ(stats.answered_ok + stats.throttled + stats.failed, 0);
}

// The instance-wide state: a call that gives up without reaching the instance makes it
// unreachable (naming the cause), the next answer makes it reachable again; an answer that
// is an error (500 until the retries run out) still proves the instance is there, while
// refused credentials do not.
TEST(ClientTest, ReachabilityFollowsFailedConnectionsAnswersAndRefusedCredentials) {
  IoThreads io;
  const testsupport::RefusingPort gone;  // nothing listens there, and no one can bind it
  const std::string dead_url = gone.http_url();
  ScriptServer live([](const SeenRequest& req, int) {
    if (req.target.find("/broken") != std::string::npos) return Json(500, R"({"error":{}})");
    if (req.target.find("/locked") != std::string::npos) {
      return Json(401, R"({"error":{"message":"User Not Authenticated"},"status":"failure"})");
    }
    return Json(200, kList);
  });
  live.Start();
  ClientOptions o = BasicOptions(dead_url);
  // One attempt per call, and the instance gate's first probe (after the initial backoff)
  // far beyond the test: a probe in flight when a call changes the state would add a
  // transition of its own (a refused /locked probe answered after the last call's 200).
  o.retry.max_attempts = 1;
  o.retry.initial_backoff_ms = 600000;
  o.retry.max_backoff_ms = 600000;
  auto client = MakeClient(io.io(), o, {.jitter = ZeroJitter()});
  std::mutex mu;
  std::vector<InstanceReachability::View> told;
  client->reachability().SetListener([&](const InstanceReachability::View& v) {
    std::lock_guard lock(mu);
    told.push_back(v);
  });
  EXPECT_EQ(client->reachability().Read().state, InstanceReachability::State::kUnknown);

  CallResult refused = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  EXPECT_EQ(refused.klass, OutcomeClass::kRetryable);
  EXPECT_TRUE(refused.instance_unreachable);
  InstanceReachability::View v = client->reachability().Read();
  EXPECT_EQ(v.state, InstanceReachability::State::kUnreachable);
  EXPECT_NE(v.reason.find("Couldn't connect"), std::string::npos) << v.reason;
  EXPECT_EQ(v.failed_calls, 1);
  EXPECT_NE(InstanceReachability::Describe(v).find("unreachable since"), std::string::npos);
  EXPECT_FALSE(v.credentials_refused);

  // An absolute target reaches the live server through the same client.
  CallResult broken = SendAndWait(*client, io.io(), Get(live.base_url() + "/api/now/table/broken"));
  EXPECT_EQ(broken.klass, OutcomeClass::kRetryable);
  EXPECT_FALSE(broken.instance_unreachable);
  EXPECT_EQ(client->reachability().Read().state, InstanceReachability::State::kReachable);

  CallResult locked = SendAndWait(*client, io.io(), Get(live.base_url() + "/api/now/table/locked"));
  EXPECT_EQ(locked.klass, OutcomeClass::kUnauthorized);
  EXPECT_TRUE(locked.instance_unreachable);
  v = client->reachability().Read();
  EXPECT_EQ(v.state, InstanceReachability::State::kUnreachable);
  EXPECT_TRUE(v.credentials_refused);
  EXPECT_GE(client->stats().refused, 1) << "a 401 is counted as refused, not as an error";
  // A 401 is an answer: health names the refusal, not a network problem.
  EXPECT_EQ(InstanceReachability::Describe(v).rfind("credentials refused since ", 0), 0u)
      << InstanceReachability::Describe(v);
  EXPECT_EQ(InstanceReachability::Describe(v).find("unreachable"), std::string::npos);

  CallResult ok = SendAndWait(*client, io.io(), Get(live.base_url() + "/api/now/table/incident"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(client->reachability().Read().state, InstanceReachability::State::kReachable);
  std::lock_guard lock(mu);
  ASSERT_EQ(told.size(), 4u);  // unreachable, reachable, unreachable, reachable
  EXPECT_FALSE(told[0].reachable());
  EXPECT_TRUE(told[1].reachable());
  EXPECT_FALSE(told[2].reachable());
  EXPECT_TRUE(told[3].reachable());
}

TEST(ClientTest, CompletionRunsOnTheCallersExecutor) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) { return Json(200, kList); });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()));
  auto strand = boost::asio::make_strand(io.io());
  std::promise<bool> on_strand;
  client->Send(Get("/api/now/table/incident"), strand,
               [&](const CallResult&) { on_strand.set_value(strand.running_in_this_thread()); });
  auto f = on_strand.get_future();
  ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
  EXPECT_TRUE(f.get());
}

TEST(ClientTest, ServerClockDriftFromTheDateHeader) {
  IoThreads io;
  const int64_t ahead_ms = int64_t{3600} * 1000;
  ScriptServer server([ahead_ms](const SeenRequest&, int) {
    Reply r = Json(200, kList);
    const int64_t server_now_s = (SystemClock::Instance().NowMillis() + ahead_ms) / 1000;
    // Build an IMF-fixdate by hand from the epoch seconds.
    std::time_t t = server_now_s;
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    r.headers.emplace_back("Date", buf);
    return r;
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()));
  const int64_t before = client->ServerNowMillis() - SystemClock::Instance().NowMillis();
  EXPECT_LE(std::abs(before), 5) << "no drift before any answer";
  ASSERT_TRUE(SendAndWait(*client, io.io(), Get("/api/now/table/incident")).ok());
  const int64_t drift = client->ServerNowMillis() - SystemClock::Instance().NowMillis();
  EXPECT_GT(drift, ahead_ms - 2000);
  EXPECT_LT(drift, ahead_ms + 1000);
}

TEST(ClientTest, StopFailsCallsInFlight) {
  IoThreads io;
  ScriptServer server([](const SeenRequest&, int) {
    Reply r = Json(200, kList);
    r.delay_ms = 3000;
    return r;
  });
  server.Start();
  auto client = MakeClient(io.io(), BasicOptions(server.base_url()));
  auto promise = std::make_shared<std::promise<CallResult>>();
  auto future = promise->get_future();
  client->Send(Get("/api/now/table/incident"), boost::asio::make_strand(io.io()),
               [promise](CallResult r) { promise->set_value(std::move(r)); });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (server.requests().empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);  // polling a condition with a deadline
  }
  ASSERT_EQ(server.requests().size(), 1u);
  const auto stop_at = std::chrono::steady_clock::now();
  client->Stop();
  ASSERT_EQ(future.wait_for(2s), std::future_status::ready) << "the call ends with the client";
  EXPECT_LT(std::chrono::steady_clock::now() - stop_at, 2500ms);
  CallResult r = future.get();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.message.find("stopped"), std::string::npos) << r.message;
  // After Stop, calls fail at once.
  CallResult late = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
  EXPECT_FALSE(late.ok());
}

}  // namespace
}  // namespace snowcar::servicenow::testing
