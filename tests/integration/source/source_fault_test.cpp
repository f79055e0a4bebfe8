// SPDX-License-Identifier: Apache-2.0
// The source under faults: the instance misbehaving, credentials refused, Kafka away; and
// secrets never showing anywhere while it happens.
#include <gmock/gmock.h>

#include "snowcar/common/base64.h"
#include "snowcar/common/time.h"
#include "source_harness.h"

namespace snowcar::source::it {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class SourceFaults : public SourceTest {};

TEST_F(SourceFaults, RetryableAnswersDelayButNeverLoseOrRepeatRows) {
  std::vector<int64_t> seconds;
  seconds.reserve(200);
  for (int i = 0; i < 200; ++i) seconds.push_back(NowS() - 900 + i / 2);
  LoadRows(seconds);
  auto& f = emu_->faults();
  using emulator::FaultKind;
  const emulator::FaultScope gets{.method = "GET", .path_prefix = "/api/now/table/incident"};
  f.AddRule({.kind = FaultKind::kRateLimit, .scope = gets, .next_n = 3, .retry_after_seconds = 1});
  f.AddRule({.kind = FaultKind::kServerError, .scope = gets, .next_n = 3, .status = 503});
  f.AddRule({.kind = FaultKind::kMalformedJson, .scope = gets, .next_n = 2});
  f.AddRule({.kind = FaultKind::kTimedOutQuery, .scope = gets, .next_n = 2});
  f.AddRule({.kind = FaultKind::kDropMidResponse, .scope = gets, .next_n = 2});
  f.AddRule({.kind = FaultKind::kServerError, .scope = gets, .next_n = 2, .status = 502});
  Start();
  std::vector<Consumed> records;
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllFinalVersionsIn(topic_, &records); }, 40s));
  EXPECT_EQ(records.size(), 200u);
  EXPECT_EQ(Duplicates(records), 0u);
  EXPECT_GT(Counter("retries"), 0);
  EXPECT_GT(Counter("throttled_ms"), 0);
  EXPECT_EQ(TableState(), "running");
  StopGracefully();
}

// Refused credentials concern the instance, not the table (docs/outcomes.md: "401 after
// refresh" pauses): the table waits, naming the cause, instead of stopping for good.
TEST_F(SourceFaults, WrongPasswordPausesTheTableNamingCredentialsAndLeaksNothing) {
  const std::string password = "s3cr3t-Pa55-never-printed";
  props_["snow.auth.password"] = password;
  props_["log.level"] = "trace";
  LoadRows({NowS() - 100});
  Start(/*wait_ready=*/false);  // a table waiting for the instance is not ready
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return TableState() == "backing_off" &&
               std::string(Table().at("last_error").as_string()).find("401") != std::string::npos;
      },
      15s));
  const std::string error(Table().at("last_error").as_string());
  EXPECT_THAT(error, HasSubstr("401"));
  EXPECT_THAT(error, HasSubstr("credentials"));
  EXPECT_THAT(Get("/v1/health").body, HasSubstr("credentials refused"));
  std::string everything = Get("/v1/source/tables").body + Get("/v1/source/tables/inc").body +
                           Get("/metrics").body + Get("/v1/health").body;
  StopGracefully();
  everything += last_stderr_ + last_stdout_;
  EXPECT_THAT(last_stderr_, Not(HasSubstr("source.table_failed")));
  EXPECT_THAT(last_stderr_, HasSubstr("\"level\":\"trace\""));  // the most verbose level ran
  EXPECT_THAT(everything, Not(HasSubstr(password)));
  EXPECT_THAT(everything, Not(HasSubstr(Base64Encode("admin:" + password))));
  EXPECT_TRUE(ReadTopic(topic_).empty());
}

TEST_F(SourceFaults, RevokedOAuthTokenIsRenewedAndNoSecretIsPrinted) {
  props_["snow.auth.type"] = "oauth2";
  props_["snow.oauth.grant.type"] = "client_credentials";
  props_["snow.oauth.client.id"] = emulator::kDefaultClientId;
  props_["snow.oauth.client.secret"] = emulator::kDefaultClientSecret;
  props_.erase("snow.auth.password");
  props_["log.level"] = "trace";
  LoadRows({NowS() - 100});
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 1).size(), 1u);
  emu_->oauth().RevokeAll();  // the next request answers 401 once; a new token cures it
  LoadRows({NowS() - 50}, 10);
  ASSERT_EQ(WaitForRecords(topic_, 2).size(), 2u);
  EXPECT_EQ(TableState(), "running");
  std::string everything = Get("/v1/source/tables").body + Get("/metrics").body;
  StopGracefully();
  everything += last_stderr_ + last_stdout_;
  EXPECT_THAT(everything, Not(HasSubstr(emulator::kDefaultClientSecret)));
  // The tokens the instance issued (the revoked one and its successor) are secrets too.
  const auto tokens = emu_->oauth().IssuedSoFar();
  EXPECT_GE(tokens.size(), 2u);
  for (const auto& token : tokens) EXPECT_THAT(everything, Not(HasSubstr(token)));
  int refused = 0;
  for (const auto& entry : emu_->journal().All()) {
    refused += entry.auth == "bearer" && entry.status == 401 ? 1 : 0;
  }
  EXPECT_GE(refused, 1) << "the revoked token was never refused, so nothing was tested";
}

TEST_F(SourceFaults, BrokerAwayForSecondsLosesNothing) {
  props_["kafka.message.timeout.ms"] = "2500";
  props_["kafka.reconnect.backoff.ms"] = "50";
  props_["kafka.reconnect.backoff.max.ms"] = "300";
  props_["snow.source.batch.size"] = "10";
  std::vector<int64_t> seconds;
  seconds.reserve(40);
  for (int i = 0; i < 40; ++i) seconds.push_back(NowS() - 800 + i);
  LoadRows(seconds);
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 40).size(), 40u);
  ASSERT_TRUE(broker().SetBrokerDown(1).ok());
  struct Up {
    SourceFaults* t;
    ~Up() { (void)t->broker().SetBrokerUp(1); }
  } up{this};
  std::vector<int64_t> more;
  more.reserve(40);
  for (int i = 0; i < 40; ++i) more.push_back(NowS() - 30 + i / 8);
  LoadRows(more, 1000);
  // Deliveries time out while the broker is away: the table backs off and says why.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto t = Table();
        return t.contains("last_error") && t.at("last_error").is_string() &&
               std::string(t.at("last_error").as_string()).find("Kafka") != std::string::npos;
      },
      20s, 100ms));
  ASSERT_TRUE(broker().SetBrokerUp(1).ok());
  std::vector<Consumed> records;
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return AllFinalVersionsIn(topic_, &records); }, 40s, 200ms));
  EXPECT_GT(Counter("retries"), 0);
  std::set<std::string> keys;
  for (const auto& r : records) keys.insert(r.key);
  EXPECT_EQ(keys.size(), 80u);
  std::printf("[ figures  ] broker away: records=%zu duplicates=%zu\n", records.size(),
              Duplicates(records));
  ::testing::Test::RecordProperty("broker_down_duplicates", static_cast<int>(Duplicates(records)));
  StopGracefully();
}

}  // namespace
}  // namespace snowcar::source::it
