// SPDX-License-Identifier: Apache-2.0
// The sink's start-up probe of its rights on sys_db_object and sys_dictionary: a 403 makes the
// `sink.rights` health component not ok, naming the table and what to grant; the probe asks
// again until the right is there.
#include "sink/writer/rights_probe.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>

#include "sink_lanes_util.h"
#include "snowcar/api/readiness.h"
#include "support/fake_table_client.h"

namespace snowcar::sink {
namespace {

using namespace std::chrono_literals;
using servicenow::InstanceRequest;
using servicenow::OutcomeClass;
using sinktest::Fail;
using sinktest::Rows;

class RightsProbeTest : public ::testing::Test {
 protected:
  // Runs the io_context until `done` holds or 5 s pass.
  template <typename F>
  bool RunUntil(F done) {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    io_.restart();
    while (!done() && std::chrono::steady_clock::now() < deadline) io_.run_one_for(50ms);
    return done();
  }

  std::optional<api::HealthRegistry::Component> Rights() const {
    const auto snapshot = health_.Snapshot();
    const auto it = snapshot.find(std::string(kRightsComponent));
    if (it == snapshot.end()) return std::nullopt;
    return it->second;
  }

  boost::asio::io_context io_;
  testsupport::FakeTableClient fake_;
  InFlightLimit limit_{2};
  LimitedClient client_{fake_, limit_};
  api::HealthRegistry health_;
  SinkSettings settings_;
};

TEST_F(RightsProbeTest, AMissingRightIsNamedInHealthUntilItIsGranted) {
  std::atomic<bool> granted{false};
  fake_.set_handler([&](const InstanceRequest& r) -> servicenow::CallResult {
    if (!granted && r.target.rfind("/api/now/table/sys_dictionary?", 0) == 0) {
      return Fail(OutcomeClass::kPermission, 403, "Insufficient rights to query records");
    }
    return Rows({});
  });
  auto probe = RightsProbe::Start(client_, io_.get_executor(), &health_, settings_,
                                  RightsProbe::Options{.retry = 20ms});
  ASSERT_TRUE(RunUntil([&] { return Rights() && !Rights()->ok; })) << "never reported";
  EXPECT_NE(Rights()->detail.find("may not read sys_dictionary"), std::string::npos)
      << Rights()->detail;
  EXPECT_NE(Rights()->detail.find("snow.sink.unknown.field.behavior=fail"), std::string::npos);
  EXPECT_NE(Rights()->detail.find("HTTP 403"), std::string::npos);

  const size_t asked = fake_.request_count();
  granted = true;
  ASSERT_TRUE(RunUntil([&] { return Rights() && Rights()->ok; }));
  EXPECT_GT(fake_.request_count(), asked) << "asked again after the retry interval";
  EXPECT_NE(Rights()->detail.find("readable"), std::string::npos) << Rights()->detail;
  const auto requests = fake_.requests();
  EXPECT_EQ(requests.front().target,
            "/api/now/table/sys_db_object?sysparm_fields=sys_id&sysparm_limit=1");
  probe->Stop();
}

TEST_F(RightsProbeTest, OnlyWhenTheSinkReadsTheCatalog) {
  EXPECT_TRUE(NeedsRightsProbe(settings_)) << "the default, unknown.field.behavior=fail";
  settings_.unknown_field = UnknownFieldBehavior::kPassthrough;
  EXPECT_FALSE(NeedsRightsProbe(settings_));
}

// An instance that cannot be reached is the `servicenow` component's to report: the rights
// stay unknown (ok), and the probe asks again.
TEST_F(RightsProbeTest, AnUnreachableInstanceIsNotAMissingRight) {
  std::atomic<int> calls{0};
  fake_.set_handler([&](const InstanceRequest&) -> servicenow::CallResult {
    ++calls;
    return Fail(OutcomeClass::kRetryable, 0, "Couldn't connect to server");
  });
  auto probe = RightsProbe::Start(client_, io_.get_executor(), &health_, settings_,
                                  RightsProbe::Options{.retry = 10ms});
  ASSERT_TRUE(RunUntil([&] { return calls.load() >= 2; }));
  ASSERT_TRUE(Rights().has_value());
  EXPECT_TRUE(Rights()->ok);
  EXPECT_NE(Rights()->detail.find("not checked yet"), std::string::npos) << Rights()->detail;
  probe->Stop();
}

}  // namespace
}  // namespace snowcar::sink
