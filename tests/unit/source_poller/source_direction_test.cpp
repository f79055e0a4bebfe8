// SPDX-License-Identifier: Apache-2.0
// The source as a Direction: built from configuration, its socket routes, /metrics, the
// readiness gate and the graceful stop; with fakes for the Table API and Kafka.
#include "source/source_direction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/json.hpp>
#include <thread>

#include "pool_rig.h"
#include "sim_table.h"
#include "snowcar/api/api_router.h"
#include "snowcar/api/readiness.h"
#include "snowcar/config/config.h"
#include "snowcar/source/source.h"
#include "support/fake_producer.h"
#include "support/fake_table_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::source {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testing::Id;
using ::testing::Not;
using testing::SimTable;

using testing::kT0;

class SourceDirectionTest : public testing::PoolRig {
 protected:
  SourceDirectionTest() : PoolRig("source-direction") {}
  void SetUp() override {
    PoolRig::SetUp();
    sim_.rows = {{kT0 + 1, Id(1)}, {kT0 + 2, Id(2)}, {kT0 + 3, Id(3)}};
    client_.set_server_now_ms((kT0 + 60) * 1000);
  }
  // Tables other than incident (and the probe's sys_user) do not exist.
  servicenow::CallResult Answer(const servicenow::InstanceRequest& r) override {
    if (r.target.find("/incident?") == std::string::npos &&
        r.target.find("/sys_user?") == std::string::npos) {
      return testsupport::FakeTableClient::Failure(servicenow::OutcomeClass::kPermanent, 400,
                                                   "Invalid table");
    }
    return sim_.Answer(r.target);
  }
  void TearDown() override {
    if (direction_) direction_->Stop(std::chrono::steady_clock::now() + 5s);
    // Held delivery callbacks own their poller (as a real producer's pending reports do
    // until Close cancels them): complete them so nothing stays alive in a cycle.
    producer_->AckAll();
    StopPool();
    direction_.reset();
  }

  Status Make(const std::map<std::string, std::string>& extra = {}) {
    std::map<std::string, std::string> values = {
        {"source.enabled", "true"},
        {"snow.url", "https://acme.service-now.com"},
        {"snow.auth.username", "svc"},
        {"snow.auth.password", "pw"},
        {"snow.tables", "inc,bad"},
        {"snow.table.inc.name", "incident"},
        {"snow.table.inc.topic", "snow.incident"},
        {"snow.table.inc.start.timestamp", "2026-01-01 00:00:00"},
        {"snow.table.bad.name", "u_missing"},
        {"snow.table.bad.topic", "snow.missing"},
        {"snow.source.poll.interval.ms", "50"},
        {"snow.source.batch.size", "2"},
    };
    for (const auto& [k, v] : extra) {
      if (v == "<unset>") {
        values.erase(k);
      } else {
        values[k] = v;
      }
    }
    auto config = config::Config::FromMap(values);
    if (!config.ok()) return config.status();
    config_ = std::make_unique<config::Config>(std::move(config).value());
    const direction::DirectionContext context{.config = config_.get(),
                                              .io = &io_,
                                              .store = store_.get(),
                                              .client = &client_,
                                              .health = &health_};
    auto direction = MakeSource(context, {.producer = producer_});
    if (!direction.ok()) return direction.status();
    direction_ = std::move(direction).value();
    return direction_->RegisterRoutes(router_);
  }
  boost::json::value GetJson(const std::string& target, int expect = 200) {
    api::ApiResponse r = router_.Handle("GET", target);
    EXPECT_EQ(r.status, expect) << r.body;
    return boost::json::parse(r.body);
  }

  api::HealthRegistry health_;
  api::ApiRouter router_;
  SimTable sim_;
  std::unique_ptr<config::Config> config_;
  std::unique_ptr<direction::Direction> direction_;
};

TEST_F(SourceDirectionTest, RunsTablesAndShowsThemOnTheSocketAndInMetrics) {
  ASSERT_TRUE(Make().ok());
  EXPECT_EQ(direction_->name(), "source");
  EXPECT_FALSE(direction_->Started());
  ASSERT_TRUE(direction_->Start().ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return direction_->Started(); }, 5s));
  ASSERT_TRUE(testsupport::WaitFor([&] { return producer_->acknowledged().size() == 3; }, 5s));

  auto inc = GetJson("/v1/source/tables/inc").as_object();
  EXPECT_EQ(inc.at("alias").as_string(), "inc");
  EXPECT_EQ(inc.at("table").as_string(), "incident");
  EXPECT_EQ(inc.at("topic").as_string(), "snow.incident");
  EXPECT_EQ(inc.at("state").as_string(), "running");
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return GetJson("/v1/source/tables/inc").at("cursor").at("ts").as_string() ==
               "2026-01-01 00:00:03";
      },
      5s));
  EXPECT_EQ(GetJson("/v1/source/tables/inc").at("rows_emitted").as_int64(), 3);
  EXPECT_EQ(GetJson("/v1/source/tables/inc").at("lag_seconds").as_int64(), 57);
  for (const char* field :
       {"phase", "pages_fetched", "duplicates_suppressed", "rows_skipped", "retries",
        "throttled_ms", "last_request_at", "last_error", "count_reading"}) {
    EXPECT_TRUE(inc.contains(field)) << field;
  }

  // The unknown table failed at its probe; the other one is unaffected.
  auto bad = GetJson("/v1/source/tables/bad").as_object();
  EXPECT_EQ(bad.at("state").as_string(), "failed");
  EXPECT_THAT(std::string(bad.at("last_error").as_string()), HasSubstr("u_missing"));
  EXPECT_FALSE(health_.Snapshot().at("source.bad").ok);
  EXPECT_TRUE(health_.Snapshot().at("source.inc").ok);

  EXPECT_EQ(GetJson("/v1/source/tables").at("tables").as_array().size(), 2u);
  auto missing = GetJson("/v1/source/tables/nope", 404);
  EXPECT_THAT(boost::json::serialize(missing), HasSubstr("nope"));

  std::string metrics;
  direction_->WriteMetrics(metrics);
  EXPECT_THAT(metrics, HasSubstr("# TYPE snowcar_source_rows_emitted_total counter"));
  EXPECT_THAT(metrics, HasSubstr("snowcar_source_rows_emitted_total{table=\"inc\"} 3"));
  EXPECT_THAT(metrics, HasSubstr("snowcar_source_table_failed{table=\"bad\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("snowcar_source_table_failed{table=\"inc\"} 0"));
  EXPECT_THAT(metrics, HasSubstr("snowcar_source_lag_seconds{table=\"inc\"} 57"));
  EXPECT_THAT(metrics, HasSubstr("snowcar_source_cursor_timestamp_seconds{table=\"inc\"} " +
                                 std::to_string(kT0 + 3)));
  for (const char* name :
       {"snowcar_source_pages_fetched_total", "snowcar_source_duplicates_suppressed_total",
        "snowcar_source_rows_skipped_total", "snowcar_source_retries_total",
        "snowcar_source_throttled_seconds_total"}) {
    EXPECT_THAT(metrics, HasSubstr(std::string(name) + "{table=\"inc\"}"));
  }
  // The three rows were one sweep that reached the high-water mark: the table is caught up
  // (a lag that keeps growing from here is an idle table, not a stuck one). The failed one
  // is not.
  const auto current = [&] {
    std::string text;
    direction_->WriteMetrics(text);
    return text;
  };
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return current().find("snowcar_source_caught_up{table=\"inc\"} 1") != std::string::npos;
      },
      5s))
      << current();
  EXPECT_THAT(current(), HasSubstr("snowcar_source_caught_up{table=\"bad\"} 0"));
  EXPECT_THAT(current(), Not(HasSubstr("snowcar_source_sweeps_total{table=\"inc\"} 0\n")));
  EXPECT_THAT(current(), HasSubstr("snowcar_source_sweeps_total{table=\"bad\"} 0\n"));

  direction_->Stop(std::chrono::steady_clock::now() + 5s);
  EXPECT_EQ(GetJson("/v1/source/tables/inc").at("state").as_string(), "stopped");
}

TEST_F(SourceDirectionTest, ResetOfARunningTableIsRefusedButAFailedOneIsAllowed) {
  ASSERT_TRUE(Make().ok());
  ASSERT_TRUE(direction_->Start().ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return direction_->Started(); }, 5s));
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return GetJson("/v1/source/tables/bad").at("state").as_string() == "failed"; }, 5s));

  const Status running = direction_->BeforeStateReset("inc");
  EXPECT_EQ(running.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(running.message(), HasSubstr("reset-cursor inc --state-dir"));
  EXPECT_TRUE(direction_->BeforeStateReset("bad").ok());
  EXPECT_TRUE(direction_->BeforeStateReset("not_configured").ok());
  direction_->Stop(std::chrono::steady_clock::now() + 5s);
}

// deletes=audit: the table's deletes stream runs and stops with it, shows in the table's view,
// and its cursor (<alias>.deletes) cannot be reset under it.
TEST_F(SourceDirectionTest, ADeletesStreamRunsWithItsTableAndRefusesAResetWhileRunning) {
  client_.set_handler([this](const servicenow::InstanceRequest& r) {
    if (r.target.find("/sys_audit?") != std::string::npos) {
      auto none = testsupport::FakeTableClient::List({});
      none.response.total_count = 0;
      return none;
    }
    if (r.target.find("/incident?") == std::string::npos) {
      return testsupport::FakeTableClient::Failure(servicenow::OutcomeClass::kPermanent, 400,
                                                   "Invalid table");
    }
    return sim_.Answer(r.target);
  });
  ASSERT_TRUE(Make({{"snow.table.inc.deletes", "audit"}}).ok());
  ASSERT_TRUE(direction_->Start().ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return direction_->Started(); }, 5s));
  auto deletes_state = [&] {
    auto view = GetJson("/v1/source/tables/inc");
    if (!view.as_object().contains("deletes")) return std::string();
    return std::string(view.at("deletes").at("state").as_string());
  };
  ASSERT_TRUE(testsupport::WaitFor([&] { return deletes_state() == "running"; }, 5s))
      << deletes_state();
  const Status running = direction_->BeforeStateReset("inc.deletes");
  EXPECT_EQ(running.code(), StatusCode::kFailedPrecondition) << running.ToString();
  EXPECT_TRUE(direction_->BeforeStateReset("bad.deletes").ok());
  direction_->Stop(std::chrono::steady_clock::now() + 5s);
  EXPECT_EQ(deletes_state(), "stopped");
}

TEST_F(SourceDirectionTest, StopWaitsForDeliveriesUntilTheDeadline) {
  producer_->set_mode(testsupport::FakeProducer::Mode::kHold);
  ASSERT_TRUE(Make({{"snow.tables", "inc"},
                    {"snow.table.bad.name", "<unset>"},
                    {"snow.table.bad.topic", "<unset>"}})
                  .ok());
  ASSERT_TRUE(direction_->Start().ok());
  ASSERT_TRUE(testsupport::WaitFor([&] { return producer_->held() >= 2; }, 5s));
  const auto before = std::chrono::steady_clock::now();
  direction_->Stop(before + 300ms);  // nothing is acknowledged: the deadline ends the wait
  EXPECT_GE(std::chrono::steady_clock::now() - before, 300ms);
  auto cursor = store_->CursorsForTable("inc");
  ASSERT_TRUE(cursor.ok());
  EXPECT_TRUE(cursor->empty());  // no acknowledgement, no cursor
}

TEST_F(SourceDirectionTest, BadSettingsAreRefusedByName) {
  Status s = Make({{"snow.table.inc.topic", ""}});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("snow.table.inc.topic"));
}

}  // namespace
}  // namespace snowcar::source
