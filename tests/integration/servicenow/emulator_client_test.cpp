// SPDX-License-Identifier: Apache-2.0
// The client against the in-process ServiceNow emulator over real TCP: CRUD, faults the
// emulator injects (429 with Retry-After, 5xx, drops, cancelled queries) and OAuth.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>

#include "client_harness.h"
#include "snowcar/servicenow/call_cancel.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::servicenow::testing {
namespace {

using emulator::EmulatorServer;
using emulator::FaultKind;
using emulator::FaultRule;

class EmulatorClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    ASSERT_TRUE(emulator::Populate(server_.store(), "incident", {.rows = 30}).ok());
    server_.journal().Clear();
  }

  ClientOptions Basic() {
    ClientOptions o = BasicOptions(server_.base_url());
    o.username = emulator::kDefaultUser;
    o.password = emulator::kDefaultPassword;
    return o;
  }

  ClientOptions OAuth(GrantType grant) {
    ClientOptions o = Basic();
    o.auth_type = AuthType::kOAuth2;
    o.grant_type = grant;
    o.client_id = emulator::kDefaultClientId;
    o.client_secret = emulator::kDefaultClientSecret;
    return o;
  }

  std::vector<emulator::JournalEntry> TokenRequests() {
    std::vector<emulator::JournalEntry> out;
    for (auto& e : server_.journal().All()) {
      if (e.target.starts_with("/oauth_token.do")) out.push_back(e);
    }
    return out;
  }

  IoThreads io_;  // declared first: outlives the client
  EmulatorServer server_;
};

FaultRule Rule(FaultKind kind, int64_t next_n) {
  FaultRule rule;
  rule.kind = kind;
  rule.next_n = next_n;
  return rule;
}

JitterSource ZeroJitter() {
  return [](int64_t) { return 0; };
}

TEST_F(EmulatorClientTest, ListAndCrudRoundTrip) {
  auto client = MakeClient(io_.io(), Basic());
  CallResult list = SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=10"));
  ASSERT_TRUE(list.ok()) << list.ToStatus().ToString();
  EXPECT_EQ(list.response.rows.size(), 10u);
  EXPECT_EQ(list.response.total_count, 30);
  EXPECT_TRUE(FindLink(list.response.links, "next").has_value());
  EXPECT_TRUE(list.response.server_date_ms.has_value());

  CallResult created = SendAndWait(*client, io_.io(),
                                   WithBody(Method::kPost, "/api/now/table/incident",
                                            R"({"short_description":"from snowcar"})"));
  ASSERT_TRUE(created.ok()) << created.ToStatus().ToString();
  EXPECT_EQ(created.http_status, 201);
  const std::string sys_id(created.response.record.at("sys_id").as_string());
  ASSERT_EQ(sys_id.size(), 32u);
  const std::string path = "/api/now/table/incident/" + sys_id;

  CallResult patched = SendAndWait(
      *client, io_.io(), WithBody(Method::kPatch, path, R"({"short_description":"changed"})"));
  ASSERT_TRUE(patched.ok()) << patched.ToStatus().ToString();
  EXPECT_EQ(patched.response.record.at("short_description").as_string(), "changed");
  EXPECT_EQ(patched.response.record.at("sys_mod_count").as_string(), "1");

  CallResult read = SendAndWait(*client, io_.io(), Get(path));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.response.record.at("short_description").as_string(), "changed");

  InstanceRequest del;
  del.method = Method::kDelete;
  del.target = path;
  CallResult deleted = SendAndWait(*client, io_.io(), del);
  ASSERT_TRUE(deleted.ok()) << deleted.ToStatus().ToString();
  EXPECT_EQ(deleted.http_status, 204);

  CallResult missing = SendAndWait(*client, io_.io(), Get(path));
  EXPECT_EQ(missing.klass, OutcomeClass::kNotFound);
  CallResult again = SendAndWait(*client, io_.io(), del);
  EXPECT_EQ(again.klass, OutcomeClass::kNotFound);

  CallResult bad_table = SendAndWait(*client, io_.io(), Get("/api/now/table/no_such_table"));
  EXPECT_EQ(bad_table.klass, OutcomeClass::kPermanent) << bad_table.message;
  EXPECT_EQ(bad_table.attempts, 1);
}

TEST_F(EmulatorClientTest, RateLimitStormHonoursRetryAfter) {
  FaultRule rule = Rule(FaultKind::kRateLimit, 2);
  rule.retry_after_seconds = 1;
  server_.faults().AddRule(rule);
  ClientOptions o = Basic();
  o.max_concurrent_requests = 8;
  auto client = MakeClient(io_.io(), o, {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=1"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 3);
  auto journal = server_.journal().All();
  ASSERT_EQ(journal.size(), 3u);
  EXPECT_EQ(journal[0].status, 429);
  EXPECT_EQ(journal[1].status, 429);
  EXPECT_EQ(journal[2].status, 200);
  EXPECT_GE(journal[1].time_ms - journal[0].time_ms, 1000) << "waited the Retry-After";
  EXPECT_GE(journal[2].time_ms - journal[1].time_ms, 1000);
  EXPECT_EQ(client->stats().limit, 2) << "8 halved twice";
}

// A call whose token is cancelled while it waits out a long Retry-After ends at once and
// is never sent again; a call cancelled before it is sent sends nothing.
TEST_F(EmulatorClientTest, ACancelledCallStopsWaitingAndSendsNothingMore) {
  FaultRule rule = Rule(FaultKind::kRateLimit, 1);
  rule.retry_after_seconds = 30;
  server_.faults().AddRule(rule);
  ClientOptions o = Basic();
  o.retry.max_elapsed_ms = 60000;  // the 30 s wait fits: the call would send again after it
  auto client = MakeClient(io_.io(), o, {.jitter = ZeroJitter()});
  auto cancel = std::make_shared<CallCancel>();
  InstanceRequest patch =
      WithBody(Method::kPatch, "/api/now/table/incident/0", R"({"short_description":"x"})");
  patch.cancel = cancel;
  auto promise = std::make_shared<std::promise<CallResult>>();
  auto future = promise->get_future();
  client->Send(patch, boost::asio::make_strand(io_.io()),
               [promise](CallResult r) { promise->set_value(std::move(r)); });
  ASSERT_TRUE(testsupport::WaitFor([&] { return server_.journal().size() == 1; },
                                   std::chrono::seconds(10)));
  const auto cancelled_at = std::chrono::steady_clock::now();
  cancel->Cancel();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(5)), std::future_status::ready)
      << "the call still waits out its Retry-After";
  EXPECT_LT(std::chrono::steady_clock::now() - cancelled_at, std::chrono::seconds(5));
  const CallResult r = future.get();
  EXPECT_EQ(r.klass, OutcomeClass::kRetryable);
  EXPECT_FALSE(r.instance_unreachable) << "a cancel says nothing about the instance";
  EXPECT_EQ(r.attempts, 1);
  // Sent later with the same token: nothing reaches the instance.
  const CallResult again = SendAndWait(*client, io_.io(), patch);
  EXPECT_EQ(again.klass, OutcomeClass::kRetryable);
  EXPECT_EQ(again.attempts, 0);
  EXPECT_EQ(server_.journal().size(), 1u);
}

TEST_F(EmulatorClientTest, ServerErrorsThenSuccess) {
  FaultRule rule = Rule(FaultKind::kServerError, 2);
  rule.status = 502;
  server_.faults().AddRule(rule);
  auto client = MakeClient(io_.io(), Basic(), {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=5"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.response.rows.size(), 5u);
}

TEST_F(EmulatorClientTest, DroppedAndCancelledReadsAreRetried) {
  server_.faults().AddRule(Rule(FaultKind::kDropMidResponse, 1));
  FaultRule cancelled = Rule(FaultKind::kTimedOutQuery, 1);
  cancelled.valid_json = false;
  server_.faults().AddRule(cancelled);
  server_.faults().AddRule(Rule(FaultKind::kMalformedJson, 1));
  auto client = MakeClient(io_.io(), Basic(), {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=5"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 4);
  EXPECT_EQ(r.response.rows.size(), 5u);
}

TEST_F(EmulatorClientTest, CreateWhoseAnswerIsLostIsAmbiguous) {
  FaultRule rule = Rule(FaultKind::kApplyThenDrop, 1);
  rule.scope.method = "POST";
  server_.faults().AddRule(rule);
  auto client = MakeClient(io_.io(), Basic(), {.jitter = ZeroJitter()});
  CallResult r = SendAndWait(
      *client, io_.io(),
      WithBody(Method::kPost, "/api/now/table/incident", R"({"short_description":"maybe"})"));
  EXPECT_EQ(r.klass, OutcomeClass::kAmbiguous) << r.message;
  EXPECT_EQ(r.attempts, 1);
  auto journal = server_.journal().All();
  ASSERT_EQ(journal.size(), 1u) << "not resent";
  // ... and it was in fact applied: exactly why the caller must decide.
  CallResult found = SendAndWait(
      *client, io_.io(), Get("/api/now/table/incident?sysparm_query=short_description%3Dmaybe"));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found.response.rows.size(), 1u);
}

TEST_F(EmulatorClientTest, OAuthTokenIsFetchedLazilyAndOnceForManyCallers) {
  auto client = MakeClient(io_.io(), OAuth(GrantType::kClientCredentials));
  EXPECT_TRUE(server_.journal().All().empty()) << "no token request before the first call";
  std::vector<InstanceRequest> many(20, Get("/api/now/table/incident?sysparm_limit=1"));
  for (const auto& r : SendAllAndWait(*client, io_.io(), many)) {
    EXPECT_TRUE(r.ok()) << r.ToStatus().ToString();
  }
  EXPECT_EQ(TokenRequests().size(), 1u) << "single-flight: 20 callers, one token request";
  EXPECT_EQ(client->stats().token_requests, 1);
  for (const auto& e : server_.journal().All()) {
    if (!e.target.starts_with("/oauth_token.do")) {
      EXPECT_EQ(e.auth, "bearer");
    }
  }
}

TEST_F(EmulatorClientTest, ExpiredTokenIsRefreshedAndTheCallResent) {
  auto client = MakeClient(io_.io(), OAuth(GrantType::kPassword));
  ASSERT_TRUE(SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=1")).ok());
  ASSERT_EQ(TokenRequests().size(), 1u);
  // The instance's clock moves past the token's life; ours does not know.
  server_.clock().Advance(int64_t{1801} * 1000);
  CallResult r = SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=1"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 2) << "one 401, then the resend with a fresh token";
  auto journal = server_.journal().All();
  ASSERT_EQ(journal.size(), 5u);
  EXPECT_EQ(journal[2].status, 401);
  EXPECT_TRUE(journal[3].target.starts_with("/oauth_token.do"));
  EXPECT_EQ(journal[3].status, 200) << "the refresh token is still good";
  EXPECT_EQ(journal[4].status, 200);
}

class FakeClock final : public Clock {
 public:
  int64_t NowMillis() const override { return now_.load(); }
  void Advance(int64_t ms) { now_ += ms; }

 private:
  std::atomic<int64_t> now_{1'800'000'000'000};
};

TEST_F(EmulatorClientTest, TokenIsRenewedThirtySecondsBeforeItExpires) {
  FakeClock clock;
  auto client = MakeClient(io_.io(), OAuth(GrantType::kPassword), {.clock = &clock});
  ASSERT_TRUE(SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=1")).ok());
  clock.Advance(int64_t{1700} * 1000);  // 99 s before expires_in (1799 s): still good
  ASSERT_TRUE(SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=1")).ok());
  EXPECT_EQ(TokenRequests().size(), 1u);
  clock.Advance(int64_t{75} * 1000);  // 24 s before expiry: inside the 30 s margin
  CallResult r = SendAndWait(*client, io_.io(), Get("/api/now/table/incident?sysparm_limit=1"));
  ASSERT_TRUE(r.ok()) << r.ToStatus().ToString();
  EXPECT_EQ(r.attempts, 1) << "renewed before sending, no 401";
  EXPECT_EQ(TokenRequests().size(), 2u);
}

TEST_F(EmulatorClientTest, RefusedCredentialsAreFatal) {
  ClientOptions o = OAuth(GrantType::kClientCredentials);
  o.client_secret = "definitely-not-the-secret-42";
  // A slow token endpoint, so all five calls are waiting before the refusal comes back.
  emulator::LatencyKnob slow;
  slow.fixed_ms = 300;
  slow.scope.path_prefix = "/oauth_token.do";
  server_.faults().SetLatency(slow);
  auto client = MakeClient(io_.io(), o);
  std::vector<InstanceRequest> many(5, Get("/api/now/table/incident?sysparm_limit=1"));
  for (const auto& r : SendAllAndWait(*client, io_.io(), many)) {
    EXPECT_EQ(r.klass, OutcomeClass::kUnauthorized);
    EXPECT_NE(r.message.find("refused"), std::string::npos) << r.message;
    EXPECT_EQ(r.message.find("definitely-not-the-secret-42"), std::string::npos);
    EXPECT_EQ(r.ToStatus().ToString().find("definitely-not-the-secret-42"), std::string::npos);
  }
  EXPECT_EQ(TokenRequests().size(), 1u) << "the five callers shared one refused request";
  for (const auto& e : server_.journal().All()) {
    EXPECT_TRUE(e.target.starts_with("/oauth_token.do")) << "no table call without a token";
  }
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

const InstanceRequest kOneRow = Get("/api/now/table/incident?sysparm_limit=1");

// `o` reading the credential `key` from `file`, retrying quickly.
ClientOptions ReadingFile(ClientOptions o, const std::string& key, const std::string& file) {
  o.credential_files = {{key, file}};
  o.retry.initial_backoff_ms = 20;
  o.retry.max_backoff_ms = 100;
  return o;
}

// A password refused for good closes the gate; while the file still holds the wrong one, the
// gate's probes read it once each (not in a loop); once the file holds the right one, the next
// probe uses it and the gate opens with no new client.
TEST_F(EmulatorClientTest, CorrectedPasswordFileReopensTheGate) {
  using namespace std::chrono_literals;
  testsupport::TempDir dir("credentials");
  const std::string file = dir.File("password");
  WriteFile(file, "wrong-password-77\n");
  ClientOptions o = Basic();
  o.password = "wrong-password-77";
  auto client = MakeClient(io_.io(), ReadingFile(o, "snow.auth.password", file));

  CallResult refused = SendAndWait(*client, io_.io(), kOneRow);
  EXPECT_EQ(refused.klass, OutcomeClass::kUnauthorized);
  ASSERT_TRUE(testsupport::WaitFor([&] { return client->gate()->Read().probes >= 3; }, 10s));
  const int64_t rereads = client->stats().credential_rereads;  // read before the probes
  const int64_t probes = client->gate()->Read().probes;
  EXPECT_GE(rereads, 2);
  EXPECT_LE(rereads, probes) << "at most one read of the file per probe";
  EXPECT_FALSE(client->gate()->IsOpen());

  WriteFile(file, std::string(emulator::kDefaultPassword) + "\n");
  ASSERT_TRUE(testsupport::WaitFor([&] { return client->gate()->IsOpen(); }, 10s));
  CallResult ok = SendAndWait(*client, io_.io(), kOneRow);
  EXPECT_TRUE(ok.ok()) << ok.message;
  EXPECT_EQ(server_.journal().All().back().user, emulator::kDefaultUser);
}

// The same for OAuth: the token endpoint refuses the client secret in the file; the corrected
// secret is sent with the next probe's token request.
TEST_F(EmulatorClientTest, CorrectedClientSecretFileReopensTheGate) {
  using namespace std::chrono_literals;
  testsupport::TempDir dir("credentials");
  const std::string file = dir.File("client-secret");
  WriteFile(file, "wrong-secret-77\n");
  ClientOptions o = OAuth(GrantType::kClientCredentials);
  o.client_secret = "wrong-secret-77";
  auto client = MakeClient(io_.io(), ReadingFile(o, "snow.oauth.client.secret", file));

  CallResult refused = SendAndWait(*client, io_.io(), kOneRow);
  EXPECT_EQ(refused.klass, OutcomeClass::kUnauthorized);
  ASSERT_TRUE(testsupport::WaitFor([&] { return client->stats().credential_rereads >= 2; }, 10s));
  EXPECT_FALSE(client->gate()->IsOpen());

  WriteFile(file, std::string(emulator::kDefaultClientSecret) + "\n");
  ASSERT_TRUE(testsupport::WaitFor([&] { return client->gate()->IsOpen(); }, 10s));
  CallResult ok = SendAndWait(*client, io_.io(), kOneRow);
  EXPECT_TRUE(ok.ok()) << ok.message;
}

}  // namespace
}  // namespace snowcar::servicenow::testing
