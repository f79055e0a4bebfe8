// SPDX-License-Identifier: Apache-2.0
// Secrets never leave the sink: at log level trace, with Basic auth and with OAuth (password
// grant, so a refresh token exists too), commands that succeed, fail into the DLQ and the
// error reporter, and meet a revoked token. Then every place the sink writes to is searched
// for the password, the Basic credentials in base64, the client secret and every token the
// instance issued: stderr, every socket answer, DLQ keys, values and headers, and both
// reporter topics.
#include <gmock/gmock.h>

#include "sink_fixture.h"
#include "snowcar/api/client.h"
#include "snowcar/common/base64.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testsupport::WaitFor;

std::string Dump(const std::vector<testsupport::Message>& messages) {
  std::string out;
  for (const auto& m : messages) {
    out.append(m.key.value_or("")).append("\n").append(m.value.value_or("")).append("\n");
    for (const auto& [k, v] : m.headers) out.append(k).append("=").append(v).append("\n");
  }
  return out;
}

class SinkSecrets : public SinkIntegrationTest {
 protected:
  // Runs commands that succeed and fail through a sink with `auth` settings; returns every
  // text the sink produced.
  std::string Exercise(const std::vector<std::string>& auth, bool revoke_mid_run) {
    const std::string topic = NewTopic(1);
    const std::string dlq = NewTopic(1);
    const std::string ok_reports = NewTopic(1);
    const std::string error_reports = NewTopic(1);
    Seed(SysId(1), {{"short_description", "before"}});
    std::vector<std::string> sets = {"log.level=trace",
                                     "behavior.on.api.errors=log",
                                     "errors.deadletterqueue.topic.name=" + dlq,
                                     "snow.sink.reporter.success.topic=" + ok_reports,
                                     "snow.sink.reporter.error.topic=" + error_reports,
                                     "snow.sink.reporter.include.request.body=true"};
    sets.insert(sets.end(), auth.begin(), auth.end());
    auto sink = StartSink(topic, NewGroup(), sets);
    WaitAssigned(sink, 1);
    // One transient failure on the way (retried), then a success, a create and a PATCH of a
    // row that does not exist (NOT_FOUND: DLQ and error report).
    emulator::FaultRule once;
    once.kind = emulator::FaultKind::kServerError;
    once.next_n = 1;
    emulator().faults().AddRule(once);
    Produce(topic, {Command(SysId(1), boost::json::object{{"short_description", "after"}}, 0),
                    Command(std::nullopt, boost::json::object{{"short_description", "new"}}, 0),
                    Command(SysId(9), boost::json::object{{"short_description", "nobody"}}, 0)});
    EXPECT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_dlq_records_total") == 1; }, 30s))
        << Tail(sink);
    if (revoke_mid_run) {
      emulator().oauth().RevokeAll();  // the next request meets a 401 and fetches a new token
      Produce(topic, {Command(SysId(1), boost::json::object{{"short_description", "again"}}, 0)});
      EXPECT_TRUE(WaitFor(
          [&] {
            auto row = Row(SysId(1));
            return row && row->at("short_description") == "again";
          },
          30s))
          << Tail(sink);
    }
    std::string everything;
    api::Client client;
    for (const char* path : {"/v1/health", "/v1/ready", "/v1/sink/partitions", "/metrics", "/help",
                             "/v1/state/cursors"}) {
      auto r = client.Get(sink.socket, path);
      if (r.ok()) everything += r->body + "\n";
    }
    StopSink(sink);
    sink.child->WaitStreamsDrained(10s);
    everything += sink.child->Stderr() + sink.child->TakeStdout();
    const auto dead = ReadTopic(dlq, 1);
    EXPECT_EQ(dead.size(), 1u);
    const auto good = ReadTopic(ok_reports, revoke_mid_run ? 3 : 2);
    EXPECT_EQ(good.size(), revoke_mid_run ? 3u : 2u);
    const auto bad = ReadTopic(error_reports, 1);
    EXPECT_EQ(bad.size(), 1u);
    everything += Dump(dead) + Dump(good) + Dump(bad);
    // The search covers what it claims: DLQ context headers, reports, the trace log.
    EXPECT_THAT(everything, HasSubstr("snow.error.class=NOT_FOUND"));
    EXPECT_THAT(everything, HasSubstr("\"level\":\"trace\""));
    return everything;
  }
  void ExpectNoSecret(const std::string& everything, const std::string& secret) {
    EXPECT_THAT(everything, ::testing::Not(HasSubstr(secret))) << "leaked: " << secret;
  }
};

TEST_F(SinkSecrets, BasicAuthLeaksNothingThroughLogsSocketDlqOrReports) {
  const std::string everything = Exercise({}, false);
  ExpectNoSecret(everything, emulator::kDefaultPassword);
  ExpectNoSecret(everything, Base64Encode(std::string(emulator::kDefaultUser) + ":" +
                                          emulator::kDefaultPassword));
  int basic = 0;
  for (const auto& e : Journal()) basic += e.auth == "basic" ? 1 : 0;
  EXPECT_GE(basic, 3) << "the sink did not use Basic auth, so nothing was tested";
}

TEST_F(SinkSecrets, OAuthLeaksNoSecretNorIssuedTokenThroughAnyPath) {
  const std::string everything =
      Exercise({"snow.auth.type=oauth2", "snow.oauth.grant.type=password",
                std::string("snow.oauth.client.id=") + emulator::kDefaultClientId,
                std::string("snow.oauth.client.secret=") + emulator::kDefaultClientSecret},
               true);
  ExpectNoSecret(everything, emulator::kDefaultPassword);
  ExpectNoSecret(everything, emulator::kDefaultClientSecret);
  ExpectNoSecret(everything, Base64Encode(std::string(emulator::kDefaultClientId) + ":" +
                                          emulator::kDefaultClientSecret));
  const auto tokens = emulator().oauth().IssuedSoFar();
  // A first access + refresh token, then a new access token after the revocation.
  EXPECT_GE(tokens.size(), 3u);
  for (const auto& token : tokens) ExpectNoSecret(everything, token);
  int bearer = 0;
  for (const auto& e : Journal()) bearer += e.auth == "bearer" ? 1 : 0;
  EXPECT_GE(bearer, 3) << "the sink did not use its tokens, so nothing was tested";
}

}  // namespace
}  // namespace snowcar::sinkit
