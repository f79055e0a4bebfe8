// SPDX-License-Identifier: Apache-2.0
// Black-box: `snowcar state reset-cursor` through a running sidecar's socket and offline
// on its state dir, with the real binary and a real RocksDB store.
#include <gtest/gtest.h>
#include <signal.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <string>

#include "snowcar/state/state_store.h"
#include "support/child_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kCursorTs = 1764664157;  // 2025-12-02 08:29:17
constexpr int64_t kRewindTs = 1764662400;  // 2025-12-02 08:00:00

class ResetCursorProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A cursor and two emitted versions, as a source would have left them.
    auto store = state::StateStore::Open({.dir = state_dir_});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    const state::CursorIdentity identity{"acme.service-now.com", "incident", "fp1",
                                         "sys_updated_on"};
    auto window = (*store)->LoadDedupWindow(identity, state::DedupPolicy{.overlap_seconds = 3600});
    ASSERT_TRUE(window.ok()) << window.status().ToString();
    ASSERT_TRUE((*window)->Insert({kCursorTs - 30, "aa", 1}));
    ASSERT_TRUE((*window)->Insert({kCursorTs, "bb", 0}));
    ASSERT_TRUE(
        (*store)->Commit(identity, {kCursorTs, "bb", state::Phase::kStream}, **window).ok());
  }

  testsupport::RunResult Snowcar(std::vector<std::string> args) {
    testsupport::ChildOptions opts;
    opts.args = std::move(args);
    opts.capture_stderr = true;
    auto r = testsupport::RunToCompletion(SNOWCAR_BINARY, opts, 10s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : testsupport::RunResult{};
  }

  testsupport::RunResult State(std::vector<std::string> args) {
    args.insert(args.begin(), {"state", "--socket", socket_path_});
    return Snowcar(std::move(args));
  }

  std::unique_ptr<testsupport::ChildProcess> StartSidecar() {
    testsupport::ChildOptions opts;
    opts.args = {"run",
                 "--config",
                 std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/shell-only.properties",
                 "--set",
                 "state.dir=" + state_dir_,
                 "--set",
                 "socket.path=" + socket_path_};
    opts.capture_stderr = true;
    auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, opts);
    EXPECT_TRUE(child.ok()) << child.status().ToString();
    if (!child.ok()) return nullptr;
    auto c = std::move(child).value();
    const bool ready = testsupport::WaitFor(
        [&] {
          return Snowcar({"state", "--socket", socket_path_, "ready"}).status.ok();
        },
        20s, 25ms);
    EXPECT_TRUE(ready) << "sidecar never became ready; stderr:\n" << c->Stderr();
    return c;
  }

  testsupport::TempDir dir_{"snowcar-reset"};
  std::string state_dir_ = dir_.File("state");
  std::string socket_path_ = dir_.File("run/snowcar.sock");
};

TEST_F(ResetCursorProcessTest, RewindOverTheSocketThenResetOffline) {
  auto sidecar = StartSidecar();
  ASSERT_NE(sidecar, nullptr);

  auto r = State({"reset-cursor", "incident", "--to", "2025-12-02 08:00:00"});
  EXPECT_TRUE(r.status.ok()) << r.status.ToString() << " " << r.err;
  EXPECT_NE(r.out.find("rewound table incident to 2025-12-02 08:00:00 (UTC), phase backfill\n"),
            std::string::npos)
      << r.out;

  r = State({"--json", "cursors", "incident"});
  ASSERT_TRUE(r.status.ok()) << r.err;
  const auto cursor = boost::json::parse(r.out).at("cursors").at(0);
  EXPECT_EQ(cursor.at("ts"), kRewindTs) << r.out;
  EXPECT_EQ(cursor.at("sys_id"), "") << r.out;
  EXPECT_EQ(cursor.at("phase"), "backfill") << r.out;

  // A malformed date is refused by the server, naming the format; nothing changes.
  r = State({"reset-cursor", "incident", "--to", "2025-12-02T08:00:00Z"});
  EXPECT_EQ(r.status.code, 1);
  EXPECT_NE(r.err.find("YYYY-MM-DD HH:MM:SS"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("HTTP 400"), std::string::npos) << r.err;

  // While the sidecar holds the store, the offline mode is refused.
  r = Snowcar({"state", "--state-dir", state_dir_, "reset-cursor", "incident"});
  EXPECT_EQ(r.status.code, 1) << r.out;

  ASSERT_TRUE(sidecar->Signal(SIGTERM).ok());
  auto exit = sidecar->Wait(20s);
  ASSERT_TRUE(exit.ok()) << exit.status().ToString();
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << sidecar->Stderr();

  r = Snowcar({"state", "--state-dir", state_dir_, "reset-cursor", "incident"});
  EXPECT_TRUE(r.status.ok()) << r.err;
  EXPECT_EQ(r.out, "reset table incident: removed 1 cursor(s) and 2 dedup entries\n");

  auto store = state::StateStore::Open({.dir = state_dir_});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto cursors = (*store)->CursorsForTable("incident");
  ASSERT_TRUE(cursors.ok());
  EXPECT_TRUE(cursors->empty());
}

}  // namespace
}  // namespace snowcar
