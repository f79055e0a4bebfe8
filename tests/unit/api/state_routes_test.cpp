// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "fake_state_store.h"
#include "json_test_util.h"
#include "snowcar/api/routes.h"
#include "snowcar/common/redact.h"

namespace snowcar::api {
namespace {

using testing::ErrorMessage;
using testing::FakeStateStore;
using testing::ParseJson;

constexpr int64_t kTs = 1764664157;  // 2025-12-02 08:29:17 UTC

state::StoredCursor MakeCursor(std::string table, int64_t ts, std::string sys_id) {
  state::StoredCursor c;
  c.identity = {"acme.service-now.com", std::move(table), "fp1", "sys_updated_on"};
  c.cursor = {ts, std::move(sys_id), state::Phase::kStream};
  c.updated_at_ms = 1764664160123;
  return c;
}

class StateRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterStateRoutes(router_, store_).ok());
    store_.AddCursor(MakeCursor("incident", kTs, "abc"));
    store_.AddCursor(MakeCursor("change_request", kTs - 60, "def"));
    store_.AddDedup("incident", {kTs, "abc", 3});
    store_.AddDedup("incident", {kTs + 5, "abc", 4});
    store_.AddDedup("incident", {kTs, "zzz", 1});
    ASSERT_TRUE(store_.PutCorrelation("incident", "number", "INC 001/2", "sys123").ok());
  }
  FakeStateStore store_;
  ApiRouter router_;
};

TEST_F(StateRoutesTest, ListsEveryCursorWithBothTimestampForms) {
  ApiResponse r = router_.Handle("GET", "/v1/state/cursors");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto list = ParseJson(r.body).at("cursors").as_array();
  ASSERT_EQ(list.size(), 2u);
  const auto& c = list[0];
  EXPECT_EQ(c.at("instance"), "acme.service-now.com");
  EXPECT_EQ(c.at("table"), "incident");
  EXPECT_EQ(c.at("query_fingerprint"), "fp1");
  EXPECT_EQ(c.at("timestamp_field"), "sys_updated_on");
  EXPECT_EQ(c.at("ts"), kTs);
  EXPECT_EQ(c.at("ts_utc"), "2025-12-02 08:29:17");
  EXPECT_EQ(c.at("sys_id"), "abc");
  EXPECT_EQ(c.at("phase"), "stream");
  EXPECT_EQ(c.at("updated_at_ms"), 1764664160123);
  EXPECT_EQ(c.at("updated_at"), "2025-12-02T08:29:20.123Z");
}

TEST_F(StateRoutesTest, CursorsForOneTable) {
  ApiResponse r = router_.Handle("GET", "/v1/state/cursors/change_request");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("table"), "change_request");
  ASSERT_EQ(v.at("cursors").as_array().size(), 1u);
  EXPECT_EQ(v.at("cursors").as_array()[0].at("sys_id"), "def");

  r = router_.Handle("GET", "/v1/state/cursors/problem");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(ErrorMessage(r.body).find("problem"), std::string::npos);
}

TEST_F(StateRoutesTest, DedupEntriesForASysIdAndTheTableCount) {
  ApiResponse r = router_.Handle("GET", "/v1/state/dedup/incident?sys_id=abc");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("table"), "incident");
  EXPECT_EQ(v.at("sys_id"), "abc");
  EXPECT_EQ(v.at("table_entry_count"), 3);
  const auto entries = v.at("entries").as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].at("ts"), kTs);
  EXPECT_EQ(entries[0].at("ts_utc"), "2025-12-02 08:29:17");
  EXPECT_EQ(entries[0].at("sys_mod_count"), 3);
  EXPECT_EQ(entries[1].at("sys_mod_count"), 4);
}

TEST_F(StateRoutesTest, DedupUnknownSysIdIsAnEmptyList) {
  ApiResponse r = router_.Handle("GET", "/v1/state/dedup/incident?sys_id=nope");
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(ParseJson(r.body).at("entries").as_array().empty());
}

TEST_F(StateRoutesTest, DedupWithoutSysIdIs400NamingTheParameter) {
  for (const char* target : {"/v1/state/dedup/incident", "/v1/state/dedup/incident?sys_id=",
                             "/v1/state/dedup/incident?sysid=abc"}) {
    ApiResponse r = router_.Handle("GET", target);
    EXPECT_EQ(r.status, 400) << target;
    EXPECT_NE(ErrorMessage(r.body).find("sys_id"), std::string::npos) << r.body;
  }
}

TEST_F(StateRoutesTest, BadTableNameIs400) {
  for (const char* target : {"/v1/state/dedup/Incident?sys_id=a", "/v1/state/dedup/inc-1?sys_id=a",
                             "/v1/state/dedup/a%2Fb?sys_id=a", "/v1/state/correlation/X/f/v"}) {
    ApiResponse r = router_.Handle("GET", target);
    EXPECT_EQ(r.status, 400) << target;
    EXPECT_NE(ErrorMessage(r.body).find("invalid table name"), std::string::npos) << r.body;
    EXPECT_NE(ErrorMessage(r.body).find("^[a-z0-9_]+$"), std::string::npos) << r.body;
  }
}

TEST_F(StateRoutesTest, CorrelationHitWithEncodedValue) {
  ApiResponse r = router_.Handle("GET", "/v1/state/correlation/incident/number/INC%20001%2F2");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("sys_id"), "sys123");
  EXPECT_EQ(v.at("value"), "INC 001/2");
  EXPECT_EQ(v.at("field"), "number");
}

TEST_F(StateRoutesTest, CorrelationMissIs404Json) {
  ApiResponse r = router_.Handle("GET", "/v1/state/correlation/incident/number/INC9");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(ErrorMessage(r.body).find("INC9"), std::string::npos) << r.body;
  EXPECT_EQ(ParseJson(r.body).at("error").at("path"), "/v1/state/correlation/incident/number/INC9");
}

TEST_F(StateRoutesTest, ResetNeedsPost) {
  ApiResponse r = router_.Handle("GET", "/v1/state/cursors/incident/reset");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Header("Allow"), "POST");
  EXPECT_EQ(store_.reset_calls(), 0);

  r = router_.Handle("POST", "/v1/state/cursors/incident/reset");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("reset"), true);
  EXPECT_EQ(v.at("cursors_removed"), 1);
  EXPECT_EQ(v.at("dedup_entries_removed"), 3);
  EXPECT_EQ(store_.reset_calls(), 1);
  EXPECT_EQ(router_.Handle("GET", "/v1/state/cursors/incident").status, 404);
  EXPECT_EQ(router_.Handle("GET", "/v1/state/cursors/change_request").status, 200);
}

TEST_F(StateRoutesTest, RetriableStoreErrorIs503AndMasked) {
  redact::RegisterSecret("s3cr3t-value");
  store_.FailWith(Status::Unavailable("rocksdb busy; token s3cr3t-value"));
  ApiResponse r = router_.Handle("GET", "/v1/state/cursors");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(ErrorMessage(r.body).find("rocksdb busy"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("s3cr3t-value"), std::string::npos) << r.body;
  redact::ClearForTest();
}

TEST_F(StateRoutesTest, OtherStoreErrorIs500) {
  store_.FailWith(Status::DataLoss("corrupt block in password=abc123"));
  ApiResponse r = router_.Handle("POST", "/v1/state/cursors/incident/reset");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body.find("abc123"), std::string::npos) << r.body;
  EXPECT_EQ(router_.Handle("GET", "/v1/state/dedup/incident?sys_id=a").status, 500);
  EXPECT_EQ(router_.Handle("GET", "/v1/state/correlation/incident/number/x").status, 500);
}

}  // namespace
}  // namespace snowcar::api
