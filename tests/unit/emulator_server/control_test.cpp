// SPDX-License-Identifier: Apache-2.0
// The control endpoint (/_emulator/...), the journal and table snapshots.
#include <gtest/gtest.h>

#include "emulator_fixture.h"

namespace snowcar::emulator::testing {
namespace {

class Control : public EmulatorTest {
 protected:
  HttpResult Post(const std::string& path, const std::string& body) {
    return Send("POST", Url(path), body, "");
  }
};

TEST_F(Control, HealthNeedsNoAuth) {
  auto r = Get(Url("/_emulator/health"), "");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"status":"ok"})");
}

TEST_F(Control, ClockFreezeSetAdvanceDriveTimestamps) {
  auto r = Post("/_emulator/clock", R"({"action":"freeze","at":"2026-01-01T00:00:00"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json(r.body).at("now").as_string(), "2026-01-01 00:00:00");
  r = Post("/_emulator/clock", R"({"action":"advance","seconds":90})");
  EXPECT_EQ(Json(r.body).at("now").as_string(), "2026-01-01 00:01:30");
  auto created = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"t"})");
  EXPECT_EQ(Json(created.body).at("result").at("sys_created_on").as_string(),
            "2026-01-01 00:01:30");
  EXPECT_EQ(created.Header("date"), "Thu, 01 Jan 2026 00:01:30 GMT");
  r = Post("/_emulator/clock", R"({"action":"set","at":"2026-02-01 00:00:00"})");
  EXPECT_EQ(Json(r.body).at("now").as_string(), "2026-02-01 00:00:00");
  EXPECT_TRUE(server_->clock().frozen());
}

TEST_F(Control, BadBodiesSayWhatIsWrong) {
  auto r = Post("/_emulator/clock", R"({"action":"advance","seconds":"ten"})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("seconds"), std::string::npos);
  r = Post("/_emulator/faults", R"({"kind":"explode","next":1})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("explode"), std::string::npos);
  r = Post("/_emulator/faults", R"({"kind":"rate_limit"})");
  EXPECT_EQ(r.status, 400);
  r = Post("/_emulator/latency", "not json");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(Get(Url("/_emulator/nothing"), "").status, 404);
}

TEST_F(Control, FaultOverControlEndpoint) {
  auto r =
      Post("/_emulator/faults", R"({"kind":"rate_limit","next":1,"method":"GET","retry_after":3})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto api = Get(Url("/api/now/table/incident?sysparm_limit=1"));
  EXPECT_EQ(api.status, 429);
  EXPECT_EQ(api.Header("retry-after"), "3");
  EXPECT_EQ(Get(Url("/api/now/table/incident?sysparm_limit=1")).status, 200);
}

TEST_F(Control, AnswerFaultOverControlEndpoint) {
  auto r = Post("/_emulator/faults",
                R"({"kind":"answer","next":1,"method":"GET","status":409,"body":"{\"x\":1}"})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto api = Get(Url("/api/now/table/incident?sysparm_limit=1"));
  EXPECT_EQ(api.status, 409);
  EXPECT_EQ(api.body, R"({"x":1})");
  r = Post("/_emulator/faults", R"({"kind":"answer","next":1,"status":42})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("status"), std::string::npos);
  r = Post("/_emulator/faults", R"({"kind":"apply_then_stall","next":1,"delay_ms":-5})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("delay_ms"), std::string::npos);
}

TEST_F(Control, LatencyAclBatchAndOAuthKnobsAreAccepted) {
  EXPECT_EQ(Post("/_emulator/latency", R"({"fixed_ms":1,"jitter_ms":1,"method":"GET"})").status,
            200);
  EXPECT_EQ(server_->faults().latency().fixed_ms, 1);
  EXPECT_EQ(Post("/_emulator/acl", R"({"hide_every":4,"table":"incident"})").status, 200);
  EXPECT_EQ(server_->faults().acl().hide_every, 4);
  EXPECT_EQ(Post("/_emulator/batch", R"({"service_limit":2})").status, 200);
  EXPECT_EQ(server_->faults().batch_service_limit(), 2);
  EXPECT_EQ(Post("/_emulator/oauth", R"({"access_seconds":30})").status, 200);
  EXPECT_EQ(server_->oauth().access_lifetime_seconds(), 30);
}

TEST_F(Control, JournalRecordsApiRequestsButNotControlOnes) {
  Get(Url("/api/now/table/incident?sysparm_limit=2"));
  Get(Url("/api/now/table/incident"), "admin:bad");
  Get(Url("/_emulator/health"), "");
  auto r = Get(Url("/_emulator/journal"), "");
  ASSERT_EQ(r.status, 200);
  auto doc = Json(r.body);
  auto& entries = doc.at("entries").as_array();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].at("method").as_string(), "GET");
  EXPECT_EQ(entries[0].at("target").as_string(), "/api/now/table/incident?sysparm_limit=2");
  EXPECT_EQ(entries[0].at("auth").as_string(), "basic");
  EXPECT_EQ(entries[0].at("user").as_string(), "admin");
  EXPECT_EQ(entries[0].at("status").as_int64(), 200);
  EXPECT_EQ(entries[1].at("status").as_int64(), 401);
  const auto first_seq = entries[0].at("seq").to_number<uint64_t>();
  auto since = Json(Get(Url("/_emulator/journal?since=" + std::to_string(first_seq)), "").body);
  EXPECT_EQ(since.at("entries").as_array().size(), 1u);
}

TEST_F(Control, SnapshotListsEveryRow) {
  auto r = Get(Url("/_emulator/snapshot/incident"), "");
  ASSERT_EQ(r.status, 200);
  auto doc = Json(r.body);
  EXPECT_EQ(doc.at("count").as_int64(), 73);
  EXPECT_EQ(doc.at("result").as_array().size(), 73u);
  EXPECT_EQ(Get(Url("/_emulator/snapshot/nope"), "").status, 404);
}

TEST_F(Control, ResetClearsFaultsAndJournal) {
  Post("/_emulator/faults", R"({"kind":"server_error","share":1.0})");
  EXPECT_EQ(Get(Url("/api/now/table/incident?sysparm_limit=1")).status, 503);
  EXPECT_EQ(Post("/_emulator/reset", "").status, 200);
  EXPECT_EQ(server_->journal().size(), 0u);
  EXPECT_EQ(Get(Url("/api/now/table/incident?sysparm_limit=1")).status, 200);
}

TEST_F(Control, WriterStartStop) {
  auto r = Post("/_emulator/writer/start", R"({"tables":["incident"],"rows_per_second":100})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(Json(r.body).at("running").as_bool());
  EXPECT_EQ(Post("/_emulator/writer/start", R"({"tables":["incident"]})").status, 409);
  r = Post("/_emulator/writer/stop", "");
  EXPECT_FALSE(Json(r.body).at("running").as_bool());
  EXPECT_EQ(Post("/_emulator/writer/start", R"({"tables":["nope"]})").status, 400);
}

TEST_F(Control, TablesCanBeCreatedAndFilled) {
  auto r = Post("/_emulator/tables", R"({"table":"change_request","rows":12})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(server_->store().Count("change_request"), 12u);
  EXPECT_EQ(Get(Url("/api/now/table/change_request?sysparm_limit=5")).Header("x-total-count"),
            "12");
}

// A DELETE over HTTP leaves its audit rows (as the caller), the Table Cleaner leaves none,
// and an undelete restores the row and answers 404 once there is nothing left to restore.
TEST_F(Control, DeletesLeaveTheirAuditTrailAndCleanerAndUndeleteWork) {
  auto created = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"d"})");
  const std::string id(Json(created.body).at("result").at("sys_id").as_string());
  auto other = Send("POST", Url("/api/now/table/incident"), R"({"short_description":"c"})");
  const std::string cleaned(Json(other.body).at("result").at("sys_id").as_string());
  EXPECT_EQ(Send("DELETE", Url("/api/now/table/incident/" + id), "").status, 204);
  auto audit =
      Get(Url("/api/now/table/sys_audit?sysparm_query=tablename%3Dincident%5E"
              "fieldname%3DDELETED%5EORDERBYsys_created_on%5EORDERBYsys_id"));
  ASSERT_EQ(audit.status, 200) << audit.body;
  auto rows = Json(audit.body).at("result").as_array();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("documentkey").as_string(), id);
  EXPECT_EQ(rows[0].at("user").as_string(), kDefaultUser);
  auto saved = Get(Url("/api/now/table/sys_audit_delete?sysparm_query=documentkey%3D" + id));
  EXPECT_EQ(Json(saved.body).at("result").as_array().size(), 1u);

  auto r = Post("/_emulator/cleaner", R"({"table":"incident","sys_ids":[")" + cleaned + R"("]})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json(r.body).at("deleted").as_int64(), 1);
  EXPECT_EQ(server_->store().Count("sys_audit"), 1u);

  r = Post("/_emulator/undelete", R"({"table":"incident","sys_id":")" + id + R"("})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Get(Url("/api/now/table/incident/" + id)).status, 200);
  EXPECT_EQ(server_->store().Count("sys_audit"), 2u);
  EXPECT_EQ(Post("/_emulator/undelete", R"({"table":"incident","sys_id":")" + id + R"("})").status,
            404);
  EXPECT_EQ(Post("/_emulator/undelete", R"({"table":"incident"})").status, 400);
  EXPECT_EQ(Post("/_emulator/audit", R"({"table":"incident","no_audit_delete":"yes"})").status,
            400);
}

}  // namespace
}  // namespace snowcar::emulator::testing
