// SPDX-License-Identifier: Apache-2.0
// The real `snowcar` binary's `state` subcommand: exit codes are what a Kubernetes exec
// probe sees, so they are checked on the process, not only in-process.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include "snowcar/api/routes.h"
#include "snowcar/state/state_store.h"
#include "socket_test_util.h"

namespace snowcar::api {
namespace {

using testing::IoThreads;
using testing::TempDir;

struct ProcessResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// `env_prefix` is prepended to the shell command, e.g. "VAR='x' ".
ProcessResult RunSnowcar(const std::string& args, const std::string& env_prefix = "") {
  ProcessResult r;
  const std::string command =
      env_prefix + "'" + std::string(SNOWCAR_BINARY) + "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

TEST(StateCliBinary, ReadyProbeExitCodes) {
  TempDir dir;
  IoThreads io;
  Readiness readiness;
  HealthRegistry health;
  auto router = std::make_shared<ApiRouter>();
  ASSERT_TRUE(RegisterCoreRoutes(*router, readiness, health).ok());
  UnixSocketServer server(io.io(), ServerOptions{.path = dir.path() + "/s.sock"}, router);
  ASSERT_TRUE(server.Start().ok());
  const std::string socket = "--socket '" + server.path() + "' ";

  ProcessResult r = RunSnowcar("state " + socket + "ready");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("not ready"), std::string::npos) << r.output;

  readiness.MarkReady();
  r = RunSnowcar("state " + socket + "ready");
  EXPECT_EQ(r.exit_code, 0) << r.output;

  r = RunSnowcar("state " + socket + "--json health");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"status\":\"ok\""), std::string::npos) << r.output;
}

TEST(StateCliBinary, UsageAndUnreachable) {
  TempDir dir;
  EXPECT_EQ(RunSnowcar("state").exit_code, 2);
  EXPECT_EQ(RunSnowcar("state nonsense").exit_code, 2);
  const std::string missing = dir.path() + "/none.sock";
  ProcessResult r = RunSnowcar("state --socket '" + missing + "' health");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
}

TEST(StateCliBinary, EnvironmentVariableIsTheFallbackSocket) {
  TempDir dir;
  const std::string missing = dir.path() + "/from-env.sock";
  ProcessResult r = RunSnowcar("state health", "SNOWCAR_SOCKET_PATH='" + missing + "' ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(missing), std::string::npos) << r.output;
}

}  // namespace
}  // namespace snowcar::api

namespace snowcar::api {
namespace {

// --state-dir on a real RocksDB store: read, reset, and the single-process lock.
TEST(StateCliBinary, OfflineStateDirOnARealStore) {
  TempDir dir;
  const std::string state_dir = dir.path() + "/state";
  const state::CursorIdentity identity{"acme.service-now.com", "incident", "fp1", "sys_updated_on"};
  {
    auto store = state::StateStore::Open({.dir = state_dir});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto window = (*store)->LoadDedupWindow(identity, state::DedupPolicy{});
    ASSERT_TRUE(window.ok()) << window.status().ToString();
    ASSERT_TRUE((*window)->Insert({1764664157, "9d385017c611228701d22104cc95c371", 2}));
    ASSERT_TRUE(
        (*store)
            ->Commit(identity,
                     {1764664157, "9d385017c611228701d22104cc95c371", state::Phase::kStream},
                     **window)
            .ok());

    // While this process holds the store, the CLI is refused rather than opening it too.
    ProcessResult busy = RunSnowcar("state --state-dir '" + state_dir + "' cursors");
    EXPECT_EQ(busy.exit_code, 1) << busy.output;
    EXPECT_NE(busy.output.find(state_dir), std::string::npos) << busy.output;
  }

  ProcessResult r = RunSnowcar("state --state-dir '" + state_dir + "' cursors");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2025-12-02 08:29:17"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("9d385017c611228701d22104cc95c371"), std::string::npos) << r.output;

  r = RunSnowcar("state --state-dir '" + state_dir +
                 "' dedup incident 9d385017c611228701d22104cc95c371");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("table entries: 1"), std::string::npos) << r.output;

  r = RunSnowcar("state --state-dir '" + state_dir + "' reset incident");
  EXPECT_EQ(r.exit_code, 0) << r.output;

  auto store = state::StateStore::Open({.dir = state_dir});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto cursors = (*store)->ListCursors();
  ASSERT_TRUE(cursors.ok());
  EXPECT_TRUE(cursors->empty());
  auto count = (*store)->DedupCount("incident");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 0u);
}

TEST(StateCliBinary, OfflineStateDirNeverCreatesAStore) {
  TempDir dir;
  const std::string missing = dir.path() + "/typo";
  ProcessResult r = RunSnowcar("state --state-dir '" + missing + "' cursors");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(missing + "/CURRENT"));
}

}  // namespace
}  // namespace snowcar::api
