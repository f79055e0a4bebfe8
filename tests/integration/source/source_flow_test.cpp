// SPDX-License-Identifier: Apache-2.0
// The source end to end: emulator -> `snowcar run` -> embedded Kafka, read back with kcat.
#include <gmock/gmock.h>

#include <algorithm>
#include <set>

#include "snowcar/common/time.h"
#include "snowcar/common/url_encoding.h"
#include "snowcar/testbed/emulator/journal.h"
#include "source_harness.h"

namespace snowcar::source::it {
namespace {

using ::testing::HasSubstr;

class SourceFlow : public SourceTest {
 protected:
  // One row, the sidecar started and the row emitted: `journal` gets the requests up to then.
  void RequestsUntilTheFirstRecord(std::vector<emulator::JournalEntry>& journal) {
    LoadRows({NowS() - 100});
    Start();
    ASSERT_EQ(WaitForRecords(topic_, 1).size(), 1u);
    journal = emu_->journal().All();
    ASSERT_GE(journal.size(), 2u);
  }
};

TEST_F(SourceFlow, DeliversEveryRowInOrderWithKeyHeadersAndTimestamp) {
  // The (timestamp, sys_id) order across the whole table is one sweep's; a parallel backfill
  // keeps it within each range only (source_backfill_test.cpp checks that per key).
  props_["snow.source.backfill.parallelism"] = "1";
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());  // one partition: the order is visible
  const int64_t base = NowS() - 600;
  std::vector<int64_t> seconds;
  seconds.reserve(30 + 75);
  for (int i = 0; i < 30; ++i) seconds.push_back(base + int64_t{i} * 7);
  for (int i = 0; i < 75; ++i) seconds.push_back(base + 100);  // > 3 pages in one second
  auto ids = LoadRows(seconds);
  Start();
  auto records = WaitForRecords(topic_, ids.size());
  ASSERT_EQ(records.size(), ids.size());
  EXPECT_EQ(Duplicates(records), 0u);
  // (ts, sys_id) order, key = sys_id, Kafka timestamp = the row's timestamp, headers.
  for (size_t i = 1; i < records.size(); ++i) {
    const auto prev = std::make_pair(records[i - 1].updated(), records[i - 1].sys_id());
    const auto cur = std::make_pair(records[i].updated(), records[i].sys_id());
    ASSERT_LT(prev, cur) << "record " << i;
  }
  for (const auto& r : records) {
    EXPECT_EQ(r.key, r.sys_id());
    EXPECT_EQ(r.timestamp_ms, *ParseSnowTimestamp(r.updated()) * 1000);
    EXPECT_THAT(r.headers, HasSubstr("snow.source.operation=UPSERT"));
    EXPECT_THAT(r.headers, HasSubstr("snow.table=incident"));
    EXPECT_THAT(r.headers, HasSubstr("snow.instance=127.0.0.1"));
    EXPECT_THAT(r.headers, HasSubstr("snow.extracted_at="));
  }
  // The socket view.
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("rows_emitted") == 105; }, 5s));
  auto t = Table();
  EXPECT_EQ(t.at("state").as_string(), "running");
  EXPECT_EQ(t.at("table").as_string(), "incident");
  EXPECT_EQ(t.at("topic").as_string(), topic_);
  EXPECT_EQ(t.at("cursor").at("ts").as_string(), FormatSnowTimestamp(base + 203));
  EXPECT_GT(t.at("pages_fetched").as_int64(), 5);
  EXPECT_TRUE(t.at("last_error").is_null());
  auto all = Get("/v1/source/tables");
  EXPECT_EQ(all.status, 200);
  auto missing = Get("/v1/source/tables/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr("nope"));
  auto metrics = Get("/metrics");
  EXPECT_THAT(metrics.body, HasSubstr("snowcar_source_rows_emitted_total{table=\"inc\"} 105"));
  EXPECT_THAT(metrics.body, HasSubstr("snowcar_source_table_failed{table=\"inc\"} 0"));
  EXPECT_THAT(metrics.body, HasSubstr("snowcar_source_cursor_timestamp_seconds{table=\"inc\"} " +
                                      std::to_string(base + 203)));
  StopGracefully();
}

// The second a query reads up to, from its sysparm_query: the bound of a move-on range
// ("<field><=T") or the second of a drain ("<field>=T"); nullopt for other requests.
std::optional<int64_t> QueriedSecond(const std::string& target) {
  const size_t q = target.find("sysparm_query=");
  if (q == std::string::npos) return std::nullopt;
  const size_t end = target.find('&', q);
  auto query = PercentDecode(target.substr(q + 14, end == std::string::npos ? end : end - q - 14));
  if (!query.ok()) return std::nullopt;
  for (const std::string_view op : {"sys_updated_on<=", "sys_updated_on="}) {
    const size_t at = query->find(op);
    if (at == std::string::npos) continue;
    auto ts = ParseSnowTimestamp(std::string_view(*query).substr(at + op.size(), 19));
    if (ts.ok()) return *ts;
  }
  return std::nullopt;
}

TEST_F(SourceFlow, SafetyLagHoldsBackTheCurrentSecondOfTheInstanceClock) {
  // The instance's clock runs a year ahead of ours: the range a query reads up to must follow
  // it, not the local clock. The sidecar takes the instance's time from the last Date header
  // (whole seconds, rounded down) plus the local time since, which is never ahead of a clock
  // that runs. So every query must read only seconds that were over, by the one-second safety
  // lag, when it reached the instance: checked against the emulator's journal, which stamps
  // each request with the instance's clock. (A frozen instance clock would make the test
  // depend on how long the sidecar waits between a response and its next query.)
  const int64_t year_ms = int64_t{365} * 24 * 3600 * 1000;
  emu_->clock().Set(NowS() * 1000 + year_ms);
  const int64_t t = emu_->clock().NowMillis() / 1000;
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());  // one partition: the order is visible
  LoadRows({t - 5, t - 1, t + 2});  // the last is stamped in the instance's future
  Start();
  auto all = WaitForRecords(topic_, 3);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all.back().updated(), FormatSnowTimestamp(t + 2)) << "the row of second t+2 came last";

  size_t queries = 0;
  bool read_the_future_row = false;
  for (const emulator::JournalEntry& e : emu_->journal().All()) {
    if (!e.target.starts_with("/api/now/table/incident")) continue;
    const std::optional<int64_t> second = QueriedSecond(e.target);
    if (!second) continue;
    ++queries;
    const int64_t arrived = e.time_ms / 1000;  // after 1970: no rounding toward zero to mind
    EXPECT_LE(*second, arrived - 1)
        << e.target << " reached the instance at " << FormatSnowTimestamp(arrived);
    if (*second >= t + 2) read_the_future_row = true;
  }
  EXPECT_GE(queries, 2u);
  EXPECT_TRUE(read_the_future_row);
  StopGracefully();
}

TEST_F(SourceFlow, RowUpdatedTwiceBetweenPollsArrivesInItsLatestState) {
  const int64_t t = NowS() - 3600;
  emu_->clock().FreezeAt(t * 1000);
  auto ids = LoadRows({t - 10});
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 1).size(), 1u);
  emu_->clock().Advance(5000);
  ASSERT_TRUE(emu_->store().Update("incident", ids[0], {{"short_description", "first"}}).ok());
  ASSERT_TRUE(emu_->store().Update("incident", ids[0], {{"short_description", "second"}}).ok());
  emu_->clock().Advance(2000);  // the second of both updates is now over
  auto records = WaitForRecords(topic_, 2);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].mod(), "2");
  EXPECT_EQ(records[1].value.at("short_description").as_string(), "second");
  const auto more = Counter("pages_fetched");
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("pages_fetched") > more + 3; }, 10s));
  EXPECT_EQ(ReadTopic(topic_).size(), 2u);  // the intermediate version was never observable
  StopGracefully();
}

TEST_F(SourceFlow, RestartsAfterSigtermMidBackfillLoseAndRepeatNothing) {
  // One sweep, whose restart re-reads the overlap and suppresses it; the ranges of a parallel
  // backfill resume without re-reading (SourceBackfill.GracefulRestarts...).
  props_["snow.source.backfill.parallelism"] = "1";
  const int64_t base = NowS() - 4000;
  std::vector<int64_t> seconds;
  seconds.reserve(1500);
  for (int i = 0; i < 1500; ++i) seconds.push_back(base + i / 3);
  LoadRows(seconds);
  props_["snow.source.batch.size"] = "25";
  emu_->faults().SetLatency({.fixed_ms = 2, .jitter_ms = 2, .scope = {}});
  int restarts = 0;
  for (int64_t stop_after : {100, 400, 800, 1200}) {
    Start();
    ASSERT_TRUE(testsupport::WaitFor(
        [&] { return ReadTopic(topic_).size() >= static_cast<size_t>(stop_after); }, 30s, 50ms));
    StopGracefully();
    ++restarts;
    EXPECT_THAT(last_stderr_, HasSubstr("source.table_stopped"));
  }
  Start();
  std::vector<Consumed> records;
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllFinalVersionsIn(topic_, &records); }, 30s));
  EXPECT_EQ(records.size(), 1500u);
  EXPECT_EQ(Duplicates(records), 0u) << "after " << restarts << " graceful restarts";
  EXPECT_GT(Counter("duplicates_suppressed"), 0);  // the overlap was re-read and suppressed
  StopGracefully();
}

TEST_F(SourceFlow, RowsHiddenByAclsNeitherStallNorLeakTheOthers) {
  // The emulator hides every 3rd row after applying sysparm_limit: pages come back short or
  // empty while readable rows follow.
  const int64_t base = NowS() - 700;
  std::vector<int64_t> seconds;
  seconds.reserve(240 + 60);
  for (int i = 0; i < 240; ++i) seconds.push_back(base + i / 6);
  for (int i = 0; i < 60; ++i) seconds.push_back(base + 100);  // one crowded second
  auto ids = LoadRows(seconds);
  emu_->faults().SetAcl({.hide_every = 3, .table = "incident"});
  const auto acl = emu_->faults().acl();
  std::set<std::string> visible;
  for (const auto& id : ids) {
    if (!acl.Hides("incident", id)) visible.insert(id);
  }
  ASSERT_GT(visible.size(), 100u);
  ASSERT_LT(visible.size(), ids.size());
  Start();
  auto records = WaitForRecords(topic_, visible.size());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return Counter("rows_emitted") == static_cast<int64_t>(visible.size()); }, 10s));
  records = ReadTopic(topic_);
  std::set<std::string> got;
  for (const auto& r : records) got.insert(r.key);
  EXPECT_EQ(got, visible);
  EXPECT_EQ(Duplicates(records), 0u);
  EXPECT_EQ(TableState(), "running");
  StopGracefully();
}

// Probe off: no probe and no time-zone check, only the one-row read that tells the client
// the instance's clock (its Date header) before the first page is bounded.
TEST_F(SourceFlow, ProbeOffSendsOnlyAClockReadBeforeTheFirstPoll) {
  props_["snow.source.startup.probe"] = "false";
  std::vector<emulator::JournalEntry> journal;
  ASSERT_NO_FATAL_FAILURE(RequestsUntilTheFirstRecord(journal));
  EXPECT_THAT(journal[0].target, HasSubstr("sysparm_limit=1"));
  EXPECT_THAT(journal[0].target, Not(HasSubstr("ORDERBYsys_updated_on")));
  EXPECT_THAT(journal[1].target, HasSubstr("ORDERBYsys_updated_on"));
  for (const auto& e : journal) EXPECT_THAT(e.target, Not(HasSubstr("sys_user")));
  StopGracefully();
}

TEST_F(SourceFlow, ProbeChecksTheTableAndTheUsersTimeZone) {
  std::vector<emulator::JournalEntry> journal;
  ASSERT_NO_FATAL_FAILURE(RequestsUntilTheFirstRecord(journal));
  EXPECT_THAT(journal[0].target, HasSubstr("sysparm_limit=1"));
  EXPECT_THAT(journal[0].target,
              HasSubstr("sysparm_fields=sys_id%2Csys_updated_on%2Csys_mod_count"));
  bool asked_zone = false;
  for (const auto& e : journal) asked_zone |= e.target.find("/sys_user?") != std::string::npos;
  EXPECT_TRUE(asked_zone);
  StopGracefully();
}

TEST_F(SourceFlow, UnknownTableFailsOnlyThatTable) {
  const std::string other_topic = testsupport::UniqueName("src-other");
  props_["snow.tables"] = "inc,ghost";
  props_["snow.table.ghost.name"] = "u_no_such_table";
  props_["snow.table.ghost.topic"] = other_topic;
  LoadRows({NowS() - 100, NowS() - 90});
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 2).size(), 2u);
  ASSERT_TRUE(testsupport::WaitFor([&] { return TableState("ghost") == "failed"; }, 10s));
  const std::string error(Table("ghost").at("last_error").as_string());
  EXPECT_THAT(error, HasSubstr("u_no_such_table"));
  EXPECT_THAT(error, HasSubstr("no such table"));
  EXPECT_EQ(TableState("inc"), "running");
  auto health = Get("/v1/health");
  EXPECT_THAT(health.body, HasSubstr("source.ghost"));
  auto metrics = Get("/metrics");
  EXPECT_THAT(metrics.body, HasSubstr("snowcar_source_table_failed{table=\"ghost\"} 1"));
  StopGracefully();
}

TEST_F(SourceFlow, ForbiddenTableFailsWhileTheOtherKeepsFlowing) {
  ASSERT_TRUE(emu_->store().CreateTable("problem").ok());
  const std::string problem_topic = testsupport::UniqueName("src-problem");
  props_["snow.tables"] = "inc,prb";
  props_["snow.table.prb.name"] = "problem";
  props_["snow.table.prb.topic"] = problem_topic;
  emu_->faults().AddRule({.kind = emulator::FaultKind::kForbidden,
                          .scope = {.method = "GET", .path_prefix = "/api/now/table/problem"},
                          .share = 1.0});
  LoadRows({NowS() - 100});
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 1).size(), 1u);
  ASSERT_TRUE(testsupport::WaitFor([&] { return TableState("prb") == "failed"; }, 10s));
  EXPECT_THAT(std::string(Table("prb").at("last_error").as_string()), HasSubstr("403"));
  LoadRows({NowS() - 50}, 100);
  ASSERT_EQ(WaitForRecords(topic_, 2).size(), 2u);  // inc keeps flowing
  StopGracefully();
}

TEST_F(SourceFlow, ChangedQueryIsRefusedAgainstTheStoredCursor) {
  LoadRows({NowS() - 100});
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 1).size(), 1u);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("commits") > 0; }, 5s));
  StopGracefully();
  props_["snow.table.inc.query"] = "active=true";
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return TableState() == "failed"; }, 10s));
  const std::string error(Table().at("last_error").as_string());
  EXPECT_THAT(error, HasSubstr("fingerprint"));
  EXPECT_THAT(error, HasSubstr("reset"));
  StopGracefully();
}

}  // namespace
}  // namespace snowcar::source::it
