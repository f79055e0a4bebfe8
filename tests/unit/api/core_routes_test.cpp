// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "json_test_util.h"
#include "snowcar/api/readiness.h"
#include "snowcar/api/routes.h"

namespace snowcar::api {
namespace {

using testing::ErrorMessage;
using testing::ParseJson;

class CoreRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(RegisterCoreRoutes(router_, readiness_, health_).ok()); }
  Readiness readiness_;
  HealthRegistry health_;
  ApiRouter router_;
};

TEST_F(CoreRoutesTest, ReadyIs503WithReasonUntilMarkedReady) {
  ApiResponse r = router_.Handle("GET", "/v1/ready");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(ErrorMessage(r.body).find("starting up"), std::string::npos) << r.body;

  readiness_.SetNotReady("opening state store");
  r = router_.Handle("GET", "/v1/ready");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(ErrorMessage(r.body).find("opening state store"), std::string::npos) << r.body;

  readiness_.MarkReady();
  r = router_.Handle("GET", "/v1/ready");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(ParseJson(r.body).at("ready"), true);

  readiness_.SetNotReady("draining");  // shutdown flips it back
  EXPECT_EQ(router_.Handle("GET", "/v1/ready").status, 503);
}

TEST_F(CoreRoutesTest, HealthReportsComponents) {
  ApiResponse r = router_.Handle("GET", "/v1/health");
  ASSERT_EQ(r.status, 200);
  auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("status"), "ok");
  EXPECT_TRUE(v.at("components").as_object().empty());

  health_.Report("state", true, "open");
  health_.Report("kafka.producer", false, "broker down");
  r = router_.Handle("GET", "/v1/health");
  ASSERT_EQ(r.status, 200);
  v = ParseJson(r.body);
  EXPECT_EQ(v.at("status"), "degraded");
  EXPECT_EQ(v.at("components").at("state").at("ok"), true);
  EXPECT_EQ(v.at("components").at("state").at("detail"), "open");
  EXPECT_EQ(v.at("components").at("kafka.producer").at("ok"), false);
  EXPECT_EQ(v.at("components").at("kafka.producer").at("detail"), "broker down");

  health_.Report("kafka.producer", true, "connected");
  EXPECT_EQ(ParseJson(router_.Handle("GET", "/v1/health").body).at("status"), "ok");
  health_.Remove("kafka.producer");
  EXPECT_FALSE(ParseJson(router_.Handle("GET", "/v1/health").body)
                   .at("components")
                   .as_object()
                   .contains("kafka.producer"));
}

TEST_F(CoreRoutesTest, HealthAndReadyAreGetOnly) {
  EXPECT_EQ(router_.Handle("POST", "/v1/health").status, 405);
  EXPECT_EQ(router_.Handle("DELETE", "/v1/ready").status, 405);
}

TEST_F(CoreRoutesTest, RegisteringTwiceFails) {
  EXPECT_FALSE(RegisterCoreRoutes(router_, readiness_, health_).ok());
}

// The listener hears each change of readiness once, in order, whoever noticed it: MarkReady,
// a gate that opens later (seen by Refresh or a query), SetNotReady.
TEST(ReadinessListenerTest, EachChangeIsReportedOnceWhenItHappens) {
  Readiness readiness;
  std::vector<std::string> heard;
  readiness.SetListener([&](bool ready, const std::string& reason) {
    heard.push_back(ready ? "ready" : "not ready: " + reason);
  });
  bool kafka_answered = false;
  readiness.SetGate(
      [&] { return kafka_answered ? std::string() : std::string("waiting for Kafka"); });
  readiness.SetNotReady("opening state store");
  readiness.MarkReady();
  readiness.Refresh();
  EXPECT_FALSE(readiness.ready());
  EXPECT_TRUE(heard.empty()) << "never ready so far, nothing to report";

  kafka_answered = true;
  readiness.Refresh();
  ASSERT_EQ(heard, std::vector<std::string>{"ready"});
  EXPECT_TRUE(readiness.ready());
  readiness.Refresh();
  EXPECT_EQ(heard.size(), 1u) << "reported once";

  readiness.SetNotReady("shutting down");
  EXPECT_EQ(heard, (std::vector<std::string>{"ready", "not ready: shutting down"}));
  EXPECT_FALSE(readiness.ready());
  EXPECT_EQ(heard.size(), 2u);
}

}  // namespace
}  // namespace snowcar::api
