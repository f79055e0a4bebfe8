// SPDX-License-Identifier: Apache-2.0
// The process-wide /metrics families and the admin.listen loopback rule.
#include "snowcar/runtime/sidecar_metrics.h"

#include <gtest/gtest.h>

#include <ctime>
#include <fstream>

#include "snowcar/common/version.h"
#include "snowcar/runtime/sidecar.h"
#include "snowcar/servicenow/curl_table_client.h"
#include "snowcar/state/state_store.h"
#include "support/temp_dir.h"

namespace snowcar::runtime {
namespace {

// The value of the first sample line "<name>{...} <v>" or "<name> <v>"; -1 when absent.
double SampleValue(const std::string& text, const std::string& name_and_labels) {
  const std::string prefix = "\n" + name_and_labels + " ";
  const size_t at = ("\n" + text).find(prefix);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + prefix.size() - 1));
}

TEST(SidecarMetricsTest, BuildInfoCarriesTheVersionAndTheStateSchema) {
  std::string out;
  WriteBuildInfo(out);
  // The one version: CMake's project(VERSION), compiled into the library.
  EXPECT_EQ(SnowcarVersion(), SNOWCAR_PROJECT_VERSION);
  EXPECT_EQ(
      SampleValue(out, "snowcar_build_info{version=\"" + std::string(SnowcarVersion()) +
                           "\",state_schema=\"" + std::to_string(state::kSchemaVersion) + "\"}"),
      1)
      << out;
  EXPECT_NE(out.find("# TYPE snowcar_build_info gauge"), std::string::npos) << out;
}

// CHANGELOG.md's newest release is the version this build carries. Changes on main since
// that release gather under "## Unreleased (state schema N)" above it, which must name the
// schema this build writes; the release names the schema it wrote, which is this build's unless
// an unreleased change moved it on (then the Unreleased heading is where an operator sees it).
// A schema change recorded nowhere, or a release heading naming a schema newer than the build
// writes, fails here.
TEST(SidecarMetricsTest, ChangelogNamesThisReleaseAndItsStateSchema) {
  std::ifstream in(std::string(SNOWCAR_SOURCE_DIR) + "/CHANGELOG.md");
  ASSERT_TRUE(in) << "CHANGELOG.md missing";
  const std::string schema = "state schema " + std::to_string(state::kSchemaVersion);
  std::string line;
  std::string newest;
  bool unreleased = false;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) != 0) continue;
    if (line.rfind("## Unreleased", 0) == 0) {
      EXPECT_NE(line.find(schema), std::string::npos) << line;
      unreleased = true;
      continue;
    }
    newest = line;
    break;
  }
  const std::string expected = "## " + std::string(SnowcarVersion()) + " ";
  EXPECT_EQ(newest.rfind(expected, 0), 0u) << "newest release heading: " << newest;
  const size_t at = newest.find("(state schema ");
  ASSERT_NE(at, std::string::npos) << newest;
  const unsigned released = static_cast<unsigned>(std::stoul(newest.substr(at + 14)));
  if (unreleased) {
    EXPECT_LE(released, state::kSchemaVersion) << newest;
  } else {
    EXPECT_EQ(released, state::kSchemaVersion) << newest;
  }
}

TEST(SidecarMetricsTest, ProcessMetricsAreReadFromThisProcess) {
  std::string out;
  WriteProcessMetrics(out);
  const double rss = SampleValue(out, "snowcar_process_resident_memory_bytes");
  EXPECT_GT(rss, 1 << 20) << out;  // a gtest binary holds more than 1 MiB
  EXPECT_GE(SampleValue(out, "snowcar_process_cpu_seconds_total"), 0) << out;
  EXPECT_GE(SampleValue(out, "snowcar_process_open_fds"), 3) << out;  // stdin, stdout, stderr
  const double start = SampleValue(out, "snowcar_process_start_time_seconds");
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_GT(start, now - 3600) << out;
  EXPECT_LE(start, now + 1) << out;
  EXPECT_NE(out.find("# TYPE snowcar_process_cpu_seconds_total counter"), std::string::npos);
}

TEST(SidecarMetricsTest, StateMetricsComeFromRocksDbPerColumnFamily) {
  testsupport::TempDir dir("snowcar-metrics");
  auto store = state::StateStore::Open({.dir = dir.File("state")});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->PutCorrelation("incident", "u_ext", "a", "0123456789abcdef").ok());
  std::string out;
  WriteStateMetrics(out, **store);
  EXPECT_NE(out.find("# TYPE snowcar_state_estimated_keys gauge"), std::string::npos) << out;
  for (const char* family : {"snowcar_state_estimated_keys", "snowcar_state_sst_files_bytes",
                             "snowcar_state_memtable_bytes", "snowcar_state_live_data_bytes"}) {
    EXPECT_NE(out.find(std::string(family) + "{column_family=\"dedup\"}"), std::string::npos)
        << family << "\n"
        << out;
  }
  // The one correlation entry is counted (RocksDB counts memtable entries too).
  EXPECT_EQ(SampleValue(out, "snowcar_state_estimated_keys{column_family=\"correlation\"}"), 1)
      << out;
}

TEST(SidecarMetricsTest, StateWriteErrorsStartAtZero) {
  testsupport::TempDir dir("snowcar-metrics");
  auto store = state::StateStore::Open({.dir = dir.File("state")});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::string out;
  WriteStateMetrics(out, **store);
  EXPECT_EQ(SampleValue(out, "snowcar_state_write_errors_total"), 0) << out;
  EXPECT_NE(out.find("# TYPE snowcar_state_write_errors_total counter"), std::string::npos);
}

TEST(SidecarMetricsTest, ServiceNowAttemptsByResultAndTheConcurrencyLimit) {
  servicenow::ClientStats stats;
  stats.answered_ok = 7;
  stats.throttled = 2;
  stats.failed = 1;
  stats.refused = 5;
  stats.unreachable = 4;
  stats.in_flight = 3;
  stats.limit = 16;
  std::string out;
  WriteServiceNowMetrics(out, stats);
  EXPECT_EQ(SampleValue(out, "snowcar_snow_http_attempts_total{result=\"ok\"}"), 7) << out;
  EXPECT_EQ(SampleValue(out, "snowcar_snow_http_attempts_total{result=\"throttled\"}"), 2);
  EXPECT_EQ(SampleValue(out, "snowcar_snow_http_attempts_total{result=\"error\"}"), 1);
  EXPECT_EQ(SampleValue(out, "snowcar_snow_http_attempts_total{result=\"refused\"}"), 5);
  EXPECT_EQ(SampleValue(out, "snowcar_snow_http_attempts_total{result=\"unreachable\"}"), 4);
  EXPECT_EQ(SampleValue(out, "snowcar_snow_http_in_flight"), 3);
  EXPECT_EQ(SampleValue(out, "snowcar_snow_http_concurrency_limit"), 16);
}

// A refusal of the credentials is told apart from an instance that does not answer, so the
// alerting rules can page for each with its own first response.
TEST(SidecarMetricsTest, InstanceGaugesTellCredentialsRefusedApart) {
  std::string up;
  WriteInstanceMetrics(up, /*reachable=*/true, /*credentials_refused=*/false);
  EXPECT_EQ(SampleValue(up, "snowcar_servicenow_reachable"), 1) << up;
  EXPECT_EQ(SampleValue(up, "snowcar_servicenow_credentials_refused"), 0) << up;
  std::string down;
  WriteInstanceMetrics(down, false, false);
  EXPECT_EQ(SampleValue(down, "snowcar_servicenow_reachable"), 0) << down;
  EXPECT_EQ(SampleValue(down, "snowcar_servicenow_credentials_refused"), 0) << down;
  std::string refused;
  WriteInstanceMetrics(refused, false, true);
  EXPECT_EQ(SampleValue(refused, "snowcar_servicenow_reachable"), 0) << refused;
  EXPECT_EQ(SampleValue(refused, "snowcar_servicenow_credentials_refused"), 1) << refused;
}

TEST(SidecarMetricsTest, ProducerGaugesAreOneFamilyLabelledByClient) {
  std::string none;
  WriteProducerGauges(none, {});
  EXPECT_EQ(none, "") << "no producer, no family";
  std::string out;
  LatencyHistogram acked;
  acked.Observe(0.004);
  acked.Observe(0.02);
  WriteProducerGauges(out, {{"source", 12, acked}, {"sink-dlq", 0, {}}});
  EXPECT_EQ(SampleValue(out, "snowcar_kafka_producer_queue_length{client=\"source\"}"), 12) << out;
  EXPECT_EQ(SampleValue(out, "snowcar_kafka_producer_queue_length{client=\"sink-dlq\"}"), 0) << out;
  // The produce latency: one histogram family, a series per client.
  EXPECT_EQ(SampleValue(out, "snowcar_kafka_produce_duration_seconds_count{client=\"source\"}"), 2)
      << out;
  EXPECT_EQ(SampleValue(out,
                        "snowcar_kafka_produce_duration_seconds_bucket{client=\"source\","
                        "le=\"0.005\"}"),
            1)
      << out;
  EXPECT_EQ(SampleValue(out, "snowcar_kafka_produce_duration_seconds_count{client=\"sink-dlq\"}"),
            0)
      << out;
  EXPECT_NE(out.find("# TYPE snowcar_kafka_produce_duration_seconds histogram"), std::string::npos)
      << out;
  size_t families = 0;
  for (size_t at = 0; (at = out.find("# TYPE", at)) != std::string::npos; ++at) ++families;
  EXPECT_EQ(families, 2u) << out;
}

// Table API latency: one histogram series per (operation, status class) the client saw.
TEST(SidecarMetricsTest, ServiceNowLatencyIsAHistogramByOperationAndStatus) {
  servicenow::ClientStats stats;
  stats.request_seconds[{"list", "2xx"}].Observe(0.3);
  stats.request_seconds[{"post", "none"}].Observe(30.5);
  std::string out;
  WriteServiceNowMetrics(out, stats);
  EXPECT_NE(out.find("# TYPE snowcar_snow_request_duration_seconds histogram"), std::string::npos)
      << out;
  EXPECT_EQ(SampleValue(out,
                        "snowcar_snow_request_duration_seconds_bucket{operation=\"list\","
                        "status=\"2xx\",le=\"0.5\"}"),
            1)
      << out;
  EXPECT_EQ(SampleValue(out,
                        "snowcar_snow_request_duration_seconds_bucket{operation=\"post\","
                        "status=\"none\",le=\"30\"}"),
            0)
      << out;
  EXPECT_EQ(SampleValue(out,
                        "snowcar_snow_request_duration_seconds_count{operation=\"post\","
                        "status=\"none\"}"),
            1)
      << out;
}

TEST(AdminListenCheckTest, LoopbackOnlyUnlessRemoteIsAllowed) {
  EXPECT_TRUE(CheckAdminListen("", false).ok());
  EXPECT_TRUE(CheckAdminListen("127.0.0.1:9464", false).ok());
  EXPECT_TRUE(CheckAdminListen("[::1]:0", false).ok());
  EXPECT_TRUE(CheckAdminListen("localhost:9464", false).ok());
  const Status remote = CheckAdminListen("0.0.0.0:9464", false);
  ASSERT_FALSE(remote.ok());
  EXPECT_EQ(remote.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(remote.message().find("admin.listen.allow.remote=true"), std::string::npos)
      << remote.message();
  EXPECT_TRUE(CheckAdminListen("0.0.0.0:9464", true).ok());
  EXPECT_FALSE(CheckAdminListen("nonsense", true).ok());
}

}  // namespace
}  // namespace snowcar::runtime
