// SPDX-License-Identifier: Apache-2.0
// admin.listen: the optional TCP listener serves /metrics, /v1/health and /v1/ready and
// nothing else; it is off by default; a non-loopback address needs an explicit key.
#include <gtest/gtest.h>

#include <csignal>

#include "sidecar_test_util.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using sidecartest::CurlTcp;
using sidecartest::HealthComponent;
using sidecartest::SocketGet;

class AdminListenTest : public ::testing::Test {
 protected:
  std::vector<std::string> Sets(std::vector<std::string> extra = {}) {
    std::vector<std::string> sets = {"state.dir=" + dir_.File("state"), "socket.path=" + socket_};
    sets.insert(sets.end(), extra.begin(), extra.end());
    return sets;
  }

  testsupport::TempDir dir_{"snowcar-admin"};
  std::string socket_ = dir_.File("s.sock");
};

TEST_F(AdminListenTest, ServesMetricsAndProbesOverTcpAndNothingElse) {
  auto child =
      sidecartest::SpawnRun(sidecartest::ShellOnlyConfig(), Sets({"admin.listen=127.0.0.1:0"}));
  ASSERT_NE(child, nullptr);
  // The kernel picked the port; the "admin" health component says which.
  std::string detail;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto c = HealthComponent(socket_, "admin");
        if (!c.is_object()) return false;
        detail = std::string(c.as_object().at("detail").as_string());
        return c.as_object().at("ok").as_bool();
      },
      20s))
      << child->Stderr();
  const std::string prefix = "listening on 127.0.0.1:";
  ASSERT_EQ(detail.rfind(prefix, 0), 0u) << detail;
  const std::string base = "http://127.0.0.1:" + detail.substr(prefix.size());

  auto [metrics_status, metrics] = CurlTcp(base + "/metrics");
  EXPECT_EQ(metrics_status, 200) << metrics;
  for (const char* family :
       {"snowcar_build_info{version=\"", "snowcar_process_resident_memory_bytes ",
        "snowcar_process_cpu_seconds_total ", "snowcar_state_estimated_keys{column_family="}) {
    EXPECT_NE(metrics.find(family), std::string::npos) << family << "\n" << metrics;
  }
  auto [ready_status, ready] = CurlTcp(base + "/v1/ready");
  EXPECT_EQ(ready_status, 200) << ready;
  auto [health_status, health] = CurlTcp(base + "/v1/health");
  EXPECT_EQ(health_status, 200) << health;
  EXPECT_NE(health.find("\"state\""), std::string::npos) << health;

  // State views, the cursor reset and /help stay on the Unix socket.
  EXPECT_EQ(CurlTcp(base + "/v1/state/cursors").first, 404);
  EXPECT_EQ(CurlTcp(base + "/v1/state/cursors/incident/reset", "POST").first, 404);
  EXPECT_EQ(CurlTcp(base + "/help").first, 404);
  EXPECT_EQ(SocketGet(socket_, "/v1/state/cursors").first, 200);

  sidecartest::StopCleanly(*child);
  EXPECT_EQ(CurlTcp(base + "/metrics").first, 0) << "the port must close with the sidecar";
}

TEST_F(AdminListenTest, OffByDefault) {
  auto child = sidecartest::SpawnRun(sidecartest::ShellOnlyConfig(), Sets());
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return SocketGet(socket_, "/v1/ready").first == 200; }, 20s))
      << child->Stderr();
  EXPECT_TRUE(HealthComponent(socket_, "admin").is_null());
  sidecartest::StopCleanly(*child);
  EXPECT_EQ(child->Stderr().find("api.admin_listening"), std::string::npos) << child->Stderr();
}

TEST_F(AdminListenTest, ARemoteAddressNeedsTheExplicitKey) {
  testsupport::ChildOptions opts;
  opts.args = {"config", "check", sidecartest::ShellOnlyConfig(), "--set",
               "admin.listen=0.0.0.0:9464"};
  auto refused = testsupport::RunToCompletion(SNOWCAR_BINARY, opts, 20s);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->status.code, 2) << refused->out << refused->err;
  EXPECT_NE((refused->out + refused->err).find("admin.listen.allow.remote=true"), std::string::npos)
      << refused->out << refused->err;

  opts.args.insert(opts.args.end(), {"--set", "admin.listen.allow.remote=true"});
  auto allowed = testsupport::RunToCompletion(SNOWCAR_BINARY, opts, 20s);
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(allowed->status.code, 0) << allowed->out << allowed->err;

  // `run` refuses the same way, before opening anything.
  auto run =
      sidecartest::SpawnRun(sidecartest::ShellOnlyConfig(), Sets({"admin.listen=0.0.0.0:0"}));
  ASSERT_NE(run, nullptr);
  auto exit = run->Wait(20s);
  ASSERT_TRUE(exit.ok());
  EXPECT_EQ(exit->code, 2) << exit->ToString();
  EXPECT_TRUE(run->WaitStreamsDrained(10s));
  EXPECT_NE(run->Stderr().find("admin.listen.allow.remote"), std::string::npos) << run->Stderr();
}

}  // namespace
}  // namespace snowcar
