// SPDX-License-Identifier: Apache-2.0
// `snowcar state` run in-process against a real socket served by the real routes over a
// fake store.
#include "cli/state_cli.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "fake_state_store.h"
#include "json_test_util.h"
#include "snowcar/api/routes.h"
#include "socket_test_util.h"

namespace snowcar::api {
namespace {

using testing::FakeStateStore;
using testing::IoThreads;
using testing::ParseJson;
using testing::TempDir;

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

class StateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state::StoredCursor c;
    c.identity = {"acme.service-now.com", "incident", "fp1", "sys_updated_on"};
    c.cursor = {1764664157, "abc123", state::Phase::kBackfill};
    c.updated_at_ms = 1764664160000;
    store_.AddCursor(c);
    store_.AddDedup("incident", {1764664157, "abc123", 2});
    ASSERT_TRUE(store_.PutCorrelation("incident", "number", "INC/1", "sys9").ok());
    router_ = std::make_shared<ApiRouter>();
    ASSERT_TRUE(RegisterCoreRoutes(*router_, readiness_, health_).ok());
    ASSERT_TRUE(RegisterStateRoutes(*router_, store_).ok());
    server_ = std::make_unique<UnixSocketServer>(io_.io(), ServerOptions{.path = path_}, router_);
    ASSERT_TRUE(server_->Start().ok());
  }

  CliRun Run(std::vector<std::string> args, bool with_socket = true) {
    if (with_socket) {
      args.insert(args.begin(), path_);
      args.insert(args.begin(), "--socket");
    }
    std::ostringstream out, err;
    cli::StateCliEnv env;
    env.getenv = [](const char*) { return std::nullopt; };
    env.open_store = open_store_;
    const int code = cli::RunStateCli(args, out, err, env);
    return {code, out.str(), err.str()};
  }

  TempDir dir_;
  std::string path_ = dir_.path() + "/s.sock";
  FakeStateStore store_;
  Readiness readiness_;
  HealthRegistry health_;
  std::shared_ptr<ApiRouter> router_;
  IoThreads io_;
  std::unique_ptr<UnixSocketServer> server_;
  std::function<Result<std::unique_ptr<state::StateStore>>(const std::string&)> open_store_;
};

TEST_F(StateCliTest, ReadyExits1UntilReadyThen0) {
  CliRun r = Run({"ready"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not ready"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("503"), std::string::npos) << r.err;
  readiness_.MarkReady();
  r = Run({"ready"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "ready\n");
}

TEST_F(StateCliTest, HealthPrintsComponents) {
  health_.Report("state", true, "open");
  CliRun r = Run({"health"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("status: ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("state"), std::string::npos);
  EXPECT_NE(r.out.find("open"), std::string::npos);
}

TEST_F(StateCliTest, CursorsAsTableAndAsJson) {
  CliRun r = Run({"cursors"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("TABLE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2025-12-02 08:29:17"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("backfill"), std::string::npos);
  EXPECT_NE(r.out.find("abc123"), std::string::npos);

  r = Run({"--json", "cursors", "incident"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ParseJson(r.out).at("cursors").as_array()[0].at("ts"), 1764664157);

  r = Run({"cursors", "problem"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no cursor stored for table 'problem'"), std::string::npos) << r.err;
}

TEST_F(StateCliTest, DedupAndCorrelation) {
  CliRun r = Run({"dedup", "incident", "abc123"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("table entries: 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2025-12-02 08:29:17"), std::string::npos) << r.out;

  r = Run({"correlation", "incident", "number", "INC/1"});  // '/' must be encoded
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("sys_id: sys9"), std::string::npos) << r.out;

  r = Run({"correlation", "incident", "number", "INC/2"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no correlation cached"), std::string::npos) << r.err;

  r = Run({"dedup", "Bad-Table", "x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("invalid table name"), std::string::npos) << r.err;
}

TEST_F(StateCliTest, ResetPostsAndReports) {
  CliRun r = Run({"reset", "incident"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("removed 1 cursor(s) and 1 dedup entries"), std::string::npos) << r.out;
  EXPECT_EQ(store_.reset_calls(), 1);
}

TEST_F(StateCliTest, HelpListsRoutes) {
  CliRun r = Run({"help"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& route : router_->routes()) {
    EXPECT_NE(r.out.find(route.pattern), std::string::npos) << route.pattern;
  }
}

TEST_F(StateCliTest, UsageErrorsExit2) {
  EXPECT_EQ(Run({}).code, 2);
  EXPECT_EQ(Run({"frobnicate"}).code, 2);
  EXPECT_EQ(Run({"dedup", "incident"}).code, 2);
  EXPECT_EQ(Run({"--bogus", "health"}).code, 2);
  EXPECT_EQ(Run({"--socket", "/a", "--config", "/b", "health"}, false).code, 2);
  EXPECT_EQ(Run({"health", "--socket"}, false).code, 2);
  CliRun help = Run({"--help"}, false);
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("usage: snowcar state"), std::string::npos);
}

TEST_F(StateCliTest, UnreachableSocketExits1NamingIt) {
  const std::string missing = dir_.path() + "/none.sock";
  CliRun r = Run({"--socket", missing, "health"}, false);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(StateCliTest, SocketFromConfigFile) {
  const std::string config = dir_.path() + "/snowcar.properties";
  std::ofstream(config) << "state.dir=/tmp/x\nsocket.path = " << path_ << "\n";
  readiness_.MarkReady();
  CliRun r = Run({"--config", config, "ready"}, false);
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(StateCliTest, OfflineStateDirRunsTheSameRoutesOnAnOpenedStore) {
  std::string opened;
  open_store_ = [&](const std::string& dir) -> Result<std::unique_ptr<state::StateStore>> {
    opened = dir;
    auto store = std::make_unique<FakeStateStore>();
    state::StoredCursor c;
    c.identity = {"acme.service-now.com", "problem", "fp9", "sys_updated_on"};
    c.cursor = {1764664157, "off1", state::Phase::kStream};
    store->AddCursor(c);
    return std::unique_ptr<state::StateStore>(std::move(store));
  };
  CliRun r = Run({"--state-dir", "/var/lib/snowcar", "cursors"}, false);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(opened, "/var/lib/snowcar");
  EXPECT_NE(r.out.find("off1"), std::string::npos) << r.out;

  r = Run({"--state-dir=/x", "reset", "problem"}, false);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("removed 1 cursor(s)"), std::string::npos) << r.out;

  r = Run({"--state-dir", "/x", "cursors", "nope"}, false);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("state dir /x"), std::string::npos) << r.err;

  EXPECT_EQ(Run({"--state-dir", "/x", "ready"}, false).code, 2);
  EXPECT_EQ(Run({"--state-dir", "/x", "--socket", "/s", "cursors"}, false).code, 2);
}

TEST_F(StateCliTest, OfflineOpenFailureExits1WithTheStoreMessage) {
  open_store_ = [](const std::string& dir) -> Result<std::unique_ptr<state::StateStore>> {
    return Status::AlreadyExists("state dir '" + dir + "' is locked by pid 42");
  };
  CliRun r = Run({"--state-dir", "/busy", "cursors"}, false);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("locked by pid 42"), std::string::npos) << r.err;
}

TEST_F(StateCliTest, StateDirUnavailableWithoutAnOpener) {
  EXPECT_EQ(Run({"--state-dir", "/x", "cursors"}, false).code, 2);
}

}  // namespace
}  // namespace snowcar::api

namespace snowcar::api {
namespace {

TEST_F(StateCliTest, DeletesShowsEachWayOfFindingThemAndTheSweeps) {
  ASSERT_TRUE(router_
                  ->Add({.method = "GET",
                         .pattern = "/v1/source/tables",
                         .help = "canned",
                         .handler =
                             [](const ApiRequest&) {
                               return ApiResponse::Json(200, boost::json::parse(R"({"tables":[
  {"alias":"inc","deletions":{"mode":"audit+reconcile","emitted_by_audit":12,
   "emitted_by_reconciliation":3,"reconciliation":{"sweeps":5,
   "last_sweep":{"started_at":"2026-12-03T19:00:00.120Z","duration_ms":8410,
     "rows_compared":1000000,"differences":4},
   "current_sweep":{"after_sys_id":"7f000000000000000000000000000000"}}}},
  {"alias":"chg","deletions":null}]})"));
                             }})
                  .ok());
  CliRun r = Run({"deletes"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("BY_RECONCILIATION"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("audit+reconcile"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1000000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("7f000000000000000000000000000000"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("chg"), std::string::npos) << r.out;  // captures no deletes
  // Live counters: a stopped sidecar's state dir has none.
  EXPECT_EQ(Run({"--state-dir", dir_.path(), "deletes"}, false).code, 2);
}

}  // namespace
}  // namespace snowcar::api
