// SPDX-License-Identifier: Apache-2.0
// The cursor reset and rewind (POST /v1/state/cursors/{table}/reset, `snowcar state
// reset-cursor`) on a real RocksDB store: in-process through the router, offline through
// --state-dir, and over a real Unix socket.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "cli/state_cli.h"
#include "json_test_util.h"
#include "snowcar/api/routes.h"
#include "socket_test_util.h"

namespace snowcar::api {
namespace {

using testing::ErrorMessage;
using ::testing::HasSubstr;
using testing::IoThreads;
using ::testing::Not;
using testing::ParseJson;
using testing::TempDir;

constexpr int64_t kCursorTs = 1764664157;  // 2025-12-02 08:29:17
constexpr int64_t kRewindTs = 1764662400;  // 2025-12-02 08:00:00
const state::CursorIdentity kIdentity{"acme.service-now.com", "incident", "fp1", "sys_updated_on"};

struct CliRun {
  int code;
  std::string out;
  std::string err;
};

class ResetCursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    store_ = Open();
    ASSERT_NE(store_, nullptr);
    Seed();
  }

  void Seed() {
    // Three versions emitted up to the cursor, the oldest far below it.
    auto window = store_->LoadDedupWindow(kIdentity, state::DedupPolicy{.overlap_seconds = 7200});
    ASSERT_TRUE(window.ok()) << window.status().ToString();
    ASSERT_TRUE((*window)->Insert({kCursorTs - 3600, "a1", 0}));
    ASSERT_TRUE((*window)->Insert({kCursorTs - 60, "b2", 4}));
    ASSERT_TRUE((*window)->Insert({kCursorTs, "c3", 1}));
    ASSERT_TRUE(store_->Commit(kIdentity, {kCursorTs, "c3", state::Phase::kStream}, **window).ok());
    ASSERT_EQ(Count(), 3u);
  }

  std::unique_ptr<state::StateStore> Open() {
    auto store = state::StateStore::Open({.dir = state_dir_});
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  uint64_t Count() {
    auto n = store_->DedupCount("incident");
    EXPECT_TRUE(n.ok());
    return n.ok() ? *n : 0;
  }

  std::optional<state::Cursor> StoredCursor() {
    auto c = store_->LoadCursor(kIdentity);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : std::nullopt;
  }

  // Runs the CLI offline on the state dir (the test's own handle closed meanwhile).
  CliRun RunOffline(std::vector<std::string> args) {
    store_.reset();
    args.insert(args.begin(), {"--state-dir", state_dir_});
    std::ostringstream out, err;
    cli::StateCliEnv env;
    env.getenv = [](const char*) { return std::nullopt; };
    env.open_store = [](const std::string& dir) {
      return state::StateStore::Open({.dir = dir, .create_if_missing = false});
    };
    const int code = cli::RunStateCli(args, out, err, env);
    store_ = Open();
    return {code, out.str(), err.str()};
  }

  TempDir dir_;
  std::string state_dir_ = dir_.path() + "/state";
  std::unique_ptr<state::StateStore> store_;
};

TEST_F(ResetCursorTest, RewindMovesTheCursorAndKeepsTheDedupEntries) {
  ApiRouter router;
  ASSERT_TRUE(RegisterStateRoutes(router, *store_).ok());
  const ApiResponse r =
      router.Handle("POST", "/v1/state/cursors/incident/reset", R"({"to":"2025-12-02 08:00:00"})");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("table"), "incident");
  EXPECT_EQ(v.at("rewound"), true);
  EXPECT_EQ(v.at("to_ts"), kRewindTs);
  EXPECT_EQ(v.at("to_utc"), "2025-12-02 08:00:00");
  EXPECT_EQ(v.at("dedup_entries_kept"), 3);
  EXPECT_EQ(v.at("dedup_oldest_utc"), "2025-12-02 07:29:17");
  ASSERT_EQ(v.at("cursors").as_array().size(), 1u);
  EXPECT_EQ(v.at("cursors").at(0).at("from_utc"), "2025-12-02 08:29:17");
  EXPECT_EQ(v.at("cursors").at(0).at("from_sys_id"), "c3");
  EXPECT_EQ(v.at("cursors").at(0).at("query_fingerprint"), "fp1");

  EXPECT_EQ(StoredCursor(), (state::Cursor{kRewindTs, "", state::Phase::kBackfill}));
  EXPECT_EQ(Count(), 3u);  // every version stays known, even the one an hour back
  auto versions = store_->DedupEntriesFor("incident", "b2");
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(versions->size(), 1u);
}

// A table's deletes stream has its own cursor under "<alias>.deletes": reset on its own.
TEST_F(ResetCursorTest, ADeletesStreamCursorIsResetOnItsOwn) {
  const state::CursorIdentity deletes{"acme.service-now.com", "incident.deletes", "fp2",
                                      "sys_created_on"};
  auto window = store_->LoadDedupWindow(deletes, state::DedupPolicy{});
  ASSERT_TRUE(window.ok());
  ASSERT_TRUE((*window)->Insert({kCursorTs, "d4", 0}));
  ASSERT_TRUE(store_->Commit(deletes, {kCursorTs, "d4", state::Phase::kStream}, **window).ok());
  ApiRouter router;
  ASSERT_TRUE(RegisterStateRoutes(router, *store_).ok());
  EXPECT_EQ(router.Handle("GET", "/v1/state/cursors/incident.deletes", "").status, 200);
  const ApiResponse r = router.Handle("POST", "/v1/state/cursors/incident.deletes/reset", "");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(ParseJson(r.body).at("cursors_removed"), 1);
  auto gone = store_->LoadCursor(deletes);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  EXPECT_TRUE(StoredCursor().has_value());  // the table's own cursor stays
  EXPECT_EQ(Count(), 3u);
  EXPECT_EQ(router.Handle("POST", "/v1/state/cursors/incident.other/reset", "").status, 400);
  EXPECT_EQ(router.Handle("POST", "/v1/state/cursors/.deletes/reset", "").status, 400);
}

TEST_F(ResetCursorTest, RewindForwardIsAllowed) {
  // Skipping ahead (e.g. past a second the source cannot read) is the same operation.
  ApiRouter router;
  ASSERT_TRUE(RegisterStateRoutes(router, *store_).ok());
  const ApiResponse r =
      router.Handle("POST", "/v1/state/cursors/incident/reset", R"({"to":"2026-01-01 00:00:00"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(StoredCursor()->ts, 1767225600);
}

TEST_F(ResetCursorTest, EmptyBodyOrEmptyObjectForgetsTheTable) {
  bool first = true;
  for (const char* body : {"", " \n", "{}"}) {
    if (!first) Seed();
    first = false;
    ApiRouter router;
    ASSERT_TRUE(RegisterStateRoutes(router, *store_).ok());
    const ApiResponse r = router.Handle("POST", "/v1/state/cursors/incident/reset", body);
    ASSERT_EQ(r.status, 200) << r.body;
    const auto v = ParseJson(r.body);
    EXPECT_EQ(v.at("reset"), true);
    EXPECT_EQ(v.at("cursors_removed"), 1);
    EXPECT_EQ(v.at("dedup_entries_removed"), 3);
    EXPECT_FALSE(StoredCursor().has_value());
    EXPECT_EQ(Count(), 0u);
  }
}

TEST_F(ResetCursorTest, BadRequestsChangeNothing) {
  ApiRouter router;
  ASSERT_TRUE(RegisterStateRoutes(router, *store_).ok());
  struct Case {
    const char* target;
    const char* body;
    int status;
    const char* message;
  };
  for (const Case& c : {
           Case{"/v1/state/cursors/incident/reset", "not json", 400,
                "the body must be empty or a JSON object"},
           Case{"/v1/state/cursors/incident/reset", "[1]", 400, "JSON object"},
           Case{"/v1/state/cursors/incident/reset", R"({"to":"2025-12-02T08:00:00Z"})", 400,
                "\"to\" must be a UTC date-time written YYYY-MM-DD HH:MM:SS"},
           Case{"/v1/state/cursors/incident/reset", R"({"to":1764662400})", 400,
                "\"to\" must be a UTC date-time"},
           Case{"/v1/state/cursors/incident/reset", R"({"ts":"2025-12-02 08:00:00"})", 400,
                "unknown member 'ts' in the body; only \"to\" is accepted"},
           Case{"/v1/state/cursors/In%20cident/reset", "", 400, "invalid table name 'In cident'"},
           Case{"/v1/state/cursors/problem/reset", R"({"to":"2025-12-02 08:00:00"})", 404,
                "no cursor stored for table 'problem', so there is nothing to rewind"},
       }) {
    const ApiResponse r = router.Handle("POST", c.target, c.body);
    EXPECT_EQ(r.status, c.status) << c.target << " " << c.body << ": " << r.body;
    EXPECT_THAT(ErrorMessage(r.body), HasSubstr(c.message)) << c.body;
  }
  EXPECT_EQ(StoredCursor(), (state::Cursor{kCursorTs, "c3", state::Phase::kStream}));
  EXPECT_EQ(Count(), 3u);
}

TEST_F(ResetCursorTest, BeforeResetHookCanRefuseBothKinds) {
  ApiRouter router;
  std::vector<std::string> asked;
  Status answer = Status::FailedPrecondition("the poller of 'incident' is running");
  ASSERT_TRUE(RegisterStateRoutes(router, *store_, [&](std::string_view table) {
                asked.emplace_back(table);
                return answer;
              }).ok());
  ApiResponse r =
      router.Handle("POST", "/v1/state/cursors/incident/reset", R"({"to":"2025-12-02 08:00:00"})");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_THAT(ErrorMessage(r.body),
              HasSubstr("cannot reset table 'incident': the poller of 'incident' is running"));
  r = router.Handle("POST", "/v1/state/cursors/incident/reset");
  EXPECT_EQ(r.status, 409) << r.body;
  EXPECT_EQ(StoredCursor(), (state::Cursor{kCursorTs, "c3", state::Phase::kStream}));
  EXPECT_EQ(Count(), 3u);

  answer = Status::Ok();
  r = router.Handle("POST", "/v1/state/cursors/incident/reset", R"({"to":"2025-12-02 08:00:00"})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(StoredCursor()->ts, kRewindTs);
  EXPECT_EQ(asked, (std::vector<std::string>{"incident", "incident", "incident"}));
}

TEST_F(ResetCursorTest, HookIsNotAskedForAMalformedRequest) {
  ApiRouter router;
  int asked = 0;
  ASSERT_TRUE(RegisterStateRoutes(router, *store_, [&](std::string_view) {
                ++asked;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(router.Handle("POST", "/v1/state/cursors/incident/reset", "{\"to\":\"x\"}").status,
            400);
  EXPECT_EQ(asked, 0);
}

TEST_F(ResetCursorTest, OfflineCliRewinds) {
  const CliRun r = RunOffline({"reset-cursor", "incident", "--to", "2025-12-02 08:00:00"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rewound table incident to 2025-12-02 08:00:00 (UTC), phase "
                               "backfill\nkept 3 dedup entries, reaching back to 2025-12-02 "
                               "07:29:17 (UTC): the versions they remember are not emitted again"));
  EXPECT_THAT(r.out, HasSubstr("2025-12-02 08:29:17  c3"));
  EXPECT_EQ(StoredCursor(), (state::Cursor{kRewindTs, "", state::Phase::kBackfill}));
  EXPECT_EQ(Count(), 3u);
}

// The dedup index only reaches back one overlap window behind the cursor: a rewind past its
// oldest entry re-emits every version in between, sent before or not, and says so (it used
// to promise that nothing already sent would be sent again).
TEST_F(ResetCursorTest, RewindPastTheDedupWindowSaysWhatIsEmittedAgain) {
  const CliRun r = RunOffline({"reset-cursor", "incident", "--to", "2025-12-02 06:00:00"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("row versions updated from 2025-12-02 06:00:00 to 2025-12-02 "
                               "07:29:17 (UTC) are emitted again, even those sent before; the 3 "
                               "dedup entries kept cover only versions from 2025-12-02 07:29:17 "
                               "(UTC) on"));
  EXPECT_THAT(r.out, Not(HasSubstr("not sent again")));
}

TEST_F(ResetCursorTest, RewindWithoutDedupEntriesSaysEverythingIsEmittedAgain) {
  const state::CursorIdentity bare{"acme.service-now.com", "problem", "fp3", "sys_updated_on"};
  auto window = store_->LoadDedupWindow(bare, state::DedupPolicy{});
  ASSERT_TRUE(window.ok());
  ASSERT_TRUE(store_->Commit(bare, {kCursorTs, "z9", state::Phase::kStream}, **window).ok());
  const CliRun r = RunOffline({"reset-cursor", "problem", "--to", "2025-12-02 08:00:00"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("no dedup entries were kept: every row version updated since "
                               "2025-12-02 08:00:00 (UTC) is emitted again"));
}

TEST_F(ResetCursorTest, OfflineCliRewindAsJson) {
  const CliRun r = RunOffline({"--json", "reset-cursor", "--to=2025-12-02 08:00:00", "incident"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ParseJson(r.out).at("to_ts"), kRewindTs);
}

TEST_F(ResetCursorTest, OfflineCliWithoutToForgetsTheTable) {
  const CliRun r = RunOffline({"reset-cursor", "incident"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "reset table incident: removed 1 cursor(s) and 3 dedup entries\n");
  EXPECT_FALSE(StoredCursor().has_value());
  EXPECT_EQ(Count(), 0u);
}

TEST_F(ResetCursorTest, OfflineCliErrors) {
  CliRun r = RunOffline({"reset-cursor", "incident", "--to", "yesterday"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("\"to\" must be a UTC date-time written YYYY-MM-DD HH:MM:SS"));
  EXPECT_THAT(r.err, HasSubstr("HTTP 400"));
  r = RunOffline({"reset", "incident", "--to", "2025-12-02 08:00:00"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--to belongs to 'reset-cursor'"));
  r = RunOffline({"reset-cursor", "incident", "--to"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--to needs a value"));
  r = RunOffline({"reset-cursor"});
  EXPECT_EQ(r.code, 2);
  r = RunOffline({"reset-cursor", "problem", "--to", "2025-12-02 08:00:00"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("nothing to rewind"));
  EXPECT_EQ(StoredCursor(), (state::Cursor{kCursorTs, "c3", state::Phase::kStream}));
}

TEST_F(ResetCursorTest, OverTheSocket) {
  IoThreads io;
  auto router = std::make_shared<ApiRouter>();
  ASSERT_TRUE(RegisterStateRoutes(*router, *store_).ok());
  const std::string socket = dir_.path() + "/s.sock";
  UnixSocketServer server(io.io(), ServerOptions{.path = socket}, router);
  ASSERT_TRUE(server.Start().ok());
  std::ostringstream out, err;
  cli::StateCliEnv env;
  env.getenv = [](const char*) { return std::nullopt; };
  const int code = cli::RunStateCli(
      {"--socket", socket, "reset-cursor", "incident", "--to", "2025-12-02 08:00:00"}, out, err,
      env);
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_THAT(out.str(), HasSubstr("rewound table incident to 2025-12-02 08:00:00"));
  EXPECT_EQ(StoredCursor(), (state::Cursor{kRewindTs, "", state::Phase::kBackfill}));
  server.Stop();
}

}  // namespace
}  // namespace snowcar::api
