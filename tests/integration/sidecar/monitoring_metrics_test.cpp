// SPDX-License-Identifier: Apache-2.0
// The Grafana dashboard and the alerting rules in k8s/monitoring/ only work if every metric
// they name is one a sidecar really exports. This runs the real binary with both directions
// (the shipped example) against the emulator and the embedded broker, lets a row reach Kafka
// and a command reach the instance, then checks that each `snowcar_*` name in the dashboard
// and in the rules file has samples in /metrics. A renamed or removed metric fails here
// instead of leaving an empty panel or an alert that can never fire.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/sidecar_process.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

std::string ReadRepoFile(const std::string& relative) {
  std::ifstream in(std::string(SNOWCAR_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every `snowcar_<name>` token in `text`: metric names (the dashboard's uid and titles use
// "snowcar" without an underscore).
std::set<std::string> MetricNames(const std::string& text) {
  std::set<std::string> names;
  static const std::regex kName("snowcar_[a-z0-9_]+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kName);
       it != std::sregex_iterator(); ++it) {
    names.insert(it->str());
  }
  return names;
}

// True when `metrics` has a sample line of family `name` ("name{...} v" or "name v").
bool HasSample(const std::string& metrics, const std::string& name) {
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
    if (line[name.size()] == '{' || line[name.size()] == ' ') return true;
  }
  return false;
}

// The value of the first sample line starting with `prefix` (a name and the start of its
// labels); -1 when there is none.
double Value(const std::string& metrics, const std::string& prefix) {
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    return std::stod(line.substr(space + 1));
  }
  return -1;
}

// The largest value among the sample lines starting with `prefix`; -1 when there is none.
double MaxValue(const std::string& metrics, const std::string& prefix) {
  std::istringstream lines(metrics);
  std::string line;
  double most = -1;
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t space = line.rfind(' ');
    if (space != std::string::npos) most = std::max(most, std::stod(line.substr(space + 1)));
  }
  return most;
}

class MonitoringMetricsTest : public testsupport::EmbeddedBrokerTest {
 protected:
  broker::BrokerOptions Options() override {
    return {.topics = {{"snow.commands", 2}, {"snow.incident", 1}}};
  }
};

TEST_F(MonitoringMetricsTest, EveryMetricTheDashboardAndTheAlertsUseIsExported) {
  const std::string dashboard = ReadRepoFile("k8s/monitoring/grafana-dashboard.json");
  const std::string rules = ReadRepoFile("k8s/monitoring/snowcar-alerts.rules.yml");
  boost::system::error_code ec;
  (void)boost::json::parse(dashboard, ec);
  ASSERT_FALSE(ec) << "the dashboard is not JSON: " << ec.message();
  const std::set<std::string> dashboard_names = MetricNames(dashboard);
  const std::set<std::string> rule_names = MetricNames(rules);
  // The sanity floor: a dashboard of five sections and six alerts name at least this many.
  ASSERT_GE(dashboard_names.size(), 25u);
  ASSERT_GE(rule_names.size(), 8u);

  emulator::EmulatorServer emu;
  ASSERT_TRUE(emu.store().CreateTable("incident").ok());
  ASSERT_TRUE(emulator::Populate(emu.store(), "incident", {.rows = 10}).ok());
  ASSERT_TRUE(emu.Start().ok());
  auto sidecar = testsupport::SidecarProcess::Start(
      testsupport::ExampleConfig("source-and-sink.properties"),
      {"snow.url=" + emu.base_url(), "kafka.bootstrap.servers=" + bootstrap(),
       "kafka.session.timeout.ms=6000"},
      "snowcar-monitoring");
  ASSERT_NE(sidecar, nullptr);
  const auto metrics = [&] { return sidecar->Get("/metrics"); };
  // Activity on both sides, so the per-table and per-partition families have samples.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return metrics().find("snowcar_source_rows_emitted_total{table=\"incident\"} 10") !=
               std::string::npos;
      },
      60s))
      << metrics();
  auto producer = testsupport::TestProducer::Create(bootstrap());
  ASSERT_TRUE(producer.ok());
  testsupport::OutMessage command;
  command.value = R"({"short_description":"monitoring","correlation_id":"monitoring-1"})";
  ASSERT_TRUE((*producer)->ProduceAll("snow.commands", {command}, 30s).ok());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return metrics().find("snowcar_sink_records_total{operation=\"create\"} 1") !=
               std::string::npos;
      },
      60s))
      << metrics();

  // The operator's first metrics hold values that match what happened: the table caught up
  // (phase stream), the applied command leaves its partition without lag, the Table API
  // attempts and the produced rows were timed.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        const std::string m = metrics();
        return Value(m, "snowcar_source_phase{table=\"incident\",phase=\"stream\"}") == 1 &&
               Value(m, "snowcar_sink_consumer_lag{topic=\"snow.commands\"") == 0;
      },
      30s))
      << metrics();
  {
    const std::string m = metrics();
    EXPECT_EQ(Value(m, "snowcar_source_phase{table=\"incident\",phase=\"backfill\"}"), 0) << m;
    EXPECT_GE(Value(m,
                    "snowcar_snow_request_duration_seconds_count{operation=\"list\","
                    "status=\"2xx\"}"),
              1)
        << m;
    EXPECT_GE(Value(m,
                    "snowcar_snow_request_duration_seconds_count{operation=\"post\","
                    "status=\"2xx\"}"),
              1)
        << "the sink's create: " << m;
    EXPECT_GE(Value(m,
                    "snowcar_snow_request_duration_seconds_bucket{operation=\"list\","
                    "status=\"2xx\",le=\"+Inf\"}"),
              1)
        << m;
    EXPECT_GE(Value(m, "snowcar_kafka_produce_duration_seconds_count{client=\"source\"}"), 10)
        << "every acknowledged row is timed: " << m;
    EXPECT_GT(Value(m, "snowcar_kafka_produce_duration_seconds_sum{client=\"source\"}"), 0) << m;
  }

  const std::string exported = metrics();
  for (const std::string& name : dashboard_names) {
    EXPECT_TRUE(HasSample(exported, name))
        << "the dashboard uses " << name << ", which /metrics does not have";
  }
  for (const std::string& name : rule_names) {
    EXPECT_TRUE(HasSample(exported, name))
        << "an alert uses " << name << ", which /metrics does not have";
  }
  if (HasFailure()) ADD_FAILURE() << exported;

  sidecar->StopCleanly();
}

// The sink's consumer lag rises while commands wait for a slow instance and falls back to 0
// once they are applied, and the Table API latency histogram sees the slowness: the two
// values an operator reads when the sink falls behind.
TEST_F(MonitoringMetricsTest, SinkLagRisesWhileCommandsWaitAndLatencyShowsWhy) {
  emulator::EmulatorServer emu;
  ASSERT_TRUE(emu.store().CreateTable("incident").ok());
  ASSERT_TRUE(emu.Start().ok());
  // Every create takes at least 1.5 s.
  emu.faults().SetLatency({.fixed_ms = 1500, .scope = {.method = "POST", .path_prefix = ""}});
  auto sidecar = testsupport::SidecarProcess::Start(
      testsupport::ExampleConfig("source-and-sink.properties"),
      {"snow.url=" + emu.base_url(), "kafka.bootstrap.servers=" + bootstrap(),
       "kafka.session.timeout.ms=6000", "source.enabled=false"},
      "snowcar-monitoring");
  ASSERT_NE(sidecar, nullptr);
  const auto metrics = [&] { return sidecar->Get("/metrics"); };
  ASSERT_TRUE(testsupport::WaitFor([&] { return !sidecar->Get("/v1/ready").empty(); }, 60s));

  // Four creates on one partition, applied one after another.
  auto producer = testsupport::TestProducer::Create(bootstrap());
  ASSERT_TRUE(producer.ok());
  std::vector<testsupport::OutMessage> commands;
  for (int i = 0; i < 4; ++i) {
    testsupport::OutMessage m;
    m.partition = 0;
    m.value = R"({"short_description":"slow","correlation_id":"slow-)" + std::to_string(i) + "\"}";
    commands.push_back(std::move(m));
  }
  ASSERT_TRUE((*producer)->ProduceAll("snow.commands", commands, 30s).ok());

  double highest = -1;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        highest = std::max(
            highest, MaxValue(metrics(), "snowcar_sink_consumer_lag{topic=\"snow.commands\""));
        return highest >= 2;
      },
      30s))
      << "highest lag seen " << highest << "\n"
      << metrics();
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        const std::string m = metrics();
        return Value(m, "snowcar_sink_records_total{operation=\"create\"}") == 4 &&
               MaxValue(m, "snowcar_sink_consumer_lag{topic=\"snow.commands\"") == 0;
      },
      60s))
      << metrics();
  const std::string m = metrics();
  EXPECT_EQ(Value(m,
                  "snowcar_snow_request_duration_seconds_count{operation=\"post\","
                  "status=\"2xx\"}"),
            4)
      << m;
  EXPECT_GE(Value(m,
                  "snowcar_snow_request_duration_seconds_sum{operation=\"post\","
                  "status=\"2xx\"}"),
            6.0)
      << "four creates of at least 1.5 s: " << m;
  EXPECT_EQ(Value(m,
                  "snowcar_snow_request_duration_seconds_bucket{operation=\"post\","
                  "status=\"2xx\",le=\"1\"}"),
            0)
      << m;

  sidecar->StopCleanly();
}

}  // namespace
}  // namespace snowcar
