// SPDX-License-Identifier: Apache-2.0
// The direction's socket routes and /metrics before it starts (no broker needed).
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include "snowcar/api/api_router.h"
#include "snowcar/api/readiness.h"
#include "snowcar/config/config.h"
#include "snowcar/direction/direction.h"
#include "snowcar/sink/sink.h"
#include "snowcar/state/state_store.h"
#include "support/fake_table_client.h"
#include "support/temp_dir.h"

namespace snowcar::sink {
namespace {

class SinkDirectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = config::Config::FromMap({{"snow.url", "http://127.0.0.1:9"},
                                           {"snow.auth.username", "u"},
                                           {"snow.auth.password", "p4ssw0rd"},
                                           {"snow.sink.topics", "cmds"},
                                           {"snow.sink.table", "incident"},
                                           {"kafka.bootstrap.servers", "127.0.0.1:9"},
                                           {"kafka.group.id", "g"},
                                           {"state.dir", dir_.File("state")}});
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    config_ = std::make_unique<config::Config>(std::move(config).value());
    auto store = state::StateStore::Open({.dir = dir_.File("state")});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    const direction::DirectionContext context{.config = config_.get(),
                                              .io = &io_,
                                              .store = store_.get(),
                                              .client = &client_,
                                              .health = &health_};
    auto sink = MakeSink(context);
    ASSERT_TRUE(sink.ok()) << sink.status().ToString();
    sink_ = std::move(sink).value();
    ASSERT_TRUE(sink_->RegisterRoutes(router_).ok());
  }

  testsupport::TempDir dir_{"sink-direction"};
  boost::asio::io_context io_;
  testsupport::FakeTableClient client_;
  api::HealthRegistry health_;
  api::ApiRouter router_;
  std::unique_ptr<config::Config> config_;
  std::unique_ptr<state::StateStore> store_;
  std::unique_ptr<direction::Direction> sink_;
};

TEST_F(SinkDirectionTest, PartitionsViewBeforeStartHasNoLanes) {
  EXPECT_EQ(sink_->name(), "sink");
  EXPECT_FALSE(sink_->Started());
  api::ApiResponse r = router_.Handle("GET", "/v1/sink/partitions");
  ASSERT_EQ(r.status, 200) << r.body;
  auto body = boost::json::parse(r.body).as_object();
  EXPECT_EQ(body.at("subscribed"), false);
  EXPECT_EQ(body.at("max_in_flight"), 8);
  EXPECT_TRUE(body.at("partitions").as_array().empty());
}

TEST_F(SinkDirectionTest, CorrelationViewAnswersFromTheStateStore) {
  ASSERT_TRUE(store_
                  ->PutCorrelation("incident", "correlation_id", "ORD 1/2",
                                   "0123456789abcdef0123456789abcdef")
                  .ok());
  api::ApiResponse hit =
      router_.Handle("GET", "/v1/sink/correlation/incident/correlation_id/ORD%201%2F2");
  ASSERT_EQ(hit.status, 200) << hit.body;
  EXPECT_EQ(boost::json::parse(hit.body).at("sys_id"), "0123456789abcdef0123456789abcdef");

  api::ApiResponse miss =
      router_.Handle("GET", "/v1/sink/correlation/incident/correlation_id/nope");
  EXPECT_EQ(miss.status, 404);
  EXPECT_NE(miss.body.find("nope"), std::string::npos);

  api::ApiResponse bad = router_.Handle("GET", "/v1/sink/correlation/In-Cident/f/v");
  EXPECT_EQ(bad.status, 400);
}

TEST_F(SinkDirectionTest, MetricsListEveryFamily) {
  std::string out;
  sink_->WriteMetrics(out);
  for (const char* sample :
       {"snowcar_sink_records_total{operation=\"create\"} 0",
        "snowcar_sink_records_total{operation=\"delete\"} 0",
        "snowcar_sink_failures_total{class=\"RETRIES_EXHAUSTED\"} 0",
        "snowcar_sink_failures_total{class=\"PERMISSION\"} 0", "snowcar_sink_in_flight 0",
        "snowcar_sink_in_flight_max 0", "snowcar_sink_retries_total 0",
        "snowcar_sink_dlq_records_total 0", "# TYPE snowcar_sink_lane_failed gauge",
        "# TYPE snowcar_sink_partition_in_flight gauge",
        "# TYPE snowcar_sink_partition_queued gauge",
        "# TYPE snowcar_sink_partition_records_total counter",
        "# TYPE snowcar_sink_partition_dlq_records_total counter"}) {
    EXPECT_NE(out.find(sample), std::string::npos) << sample << "\n" << out;
  }
}

}  // namespace
}  // namespace snowcar::sink
