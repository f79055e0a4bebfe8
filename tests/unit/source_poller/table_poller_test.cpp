// SPDX-License-Identifier: Apache-2.0
// One table's poller on a small thread pool, with a fake Table API (a simulated table behind
// FakeTableClient), a fake producer and a real state store in a temp dir.
#include "source/poller/table_poller.h"

#include <curl/curl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <set>
#include <thread>

#include "pool_rig.h"
#include "sim_table.h"
#include "snowcar/api/readiness.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/schema_registry/outcomes.h"
#include "snowcar/schema_registry/wire_format.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "support/fake_producer.h"
#include "support/fake_table_client.h"
#include "support/http_post.h"
#include "support/refusing_port.h"
#include "support/state_fixture.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::source {
namespace {

using namespace std::chrono_literals;
using testing::Id;
using testing::SimRow;
using testing::SimTable;
using testsupport::FakeProducer;
using testsupport::FakeTableClient;
using testsupport::WaitFor;

using testing::kT0;

// The real store, except that Commit fails with RESOURCE_EXHAUSTED (what a full state.dir
// answers) while `refuse` is set; every refused call is counted.
class RefusingStore : public testsupport::ForwardingStateStore {
 public:
  using ForwardingStateStore::ForwardingStateStore;
  std::atomic<bool> refuse{false};
  std::atomic<int> refused{0};

  Status Commit(const state::CursorIdentity& id, const state::Cursor& cursor,
                state::DedupWindow& window) override {
    if (refuse.load()) {
      refused.fetch_add(1);
      return Status::ResourceExhausted("state dir test: only 12 KiB free");
    }
    return ForwardingStateStore::Commit(id, cursor, window);
  }
};

class TablePollerTest : public testing::PoolRig {
 protected:
  TablePollerTest() : PoolRig("source-poller") {}
  void SetUp() override {
    PoolRig::SetUp();
    source_.overlap_seconds = 2;
    source_.safety_lag_seconds = 1;
    source_.startup_probe = false;
    // These tests follow one sweep request by request; the parallel backfill has its own.
    source_.backfill_parallelism = 1;
    table_.start_ts = kT0;
    table_.batch_size = 3;
    table_.poll_interval_ms = 20;
    options_.initial_backoff_ms = 10;
    options_.max_backoff_ms = 40;
    options_.commit_interval_ms = 0;
  }
  void TearDown() override {
    for (auto& p : pollers_) {
      auto done = p->Stop();
      if (done.wait_for(5s) != std::future_status::ready) p->ForceFinish().wait_for(5s);
    }
    producer_->AckAll();  // held callbacks own their poller: let them go
    StopPool();
    for (auto& p : pollers_) p->ReleaseWindow();
  }

  servicenow::CallResult Answer(const servicenow::InstanceRequest& r) override {
    std::lock_guard lock(mu_);
    if (script_) {
      if (auto scripted = script_(r)) return *scripted;
    }
    return sim_.Answer(r.target);
  }

  std::shared_ptr<TablePoller> MakePoller() {
    TablePoller::Deps deps;
    deps.io = &io_;
    deps.client = &client_;
    deps.producer = producer_;
    deps.store = poller_store_ != nullptr ? poller_store_ : store_.get();
    deps.health = &health_;
    deps.source = &source_;
    deps.table = &table_;
    deps.options = options_;
    deps.once = &once_;
    deps.emitted = emitted_;
    auto poller = std::make_shared<TablePoller>(std::move(deps));
    pollers_.push_back(poller);
    return poller;
  }
  std::shared_ptr<TablePoller> StartPoller() {
    auto p = MakePoller();
    p->Start();
    return p;
  }
  void StopPoller(const std::shared_ptr<TablePoller>& p) {
    ASSERT_EQ(p->Stop().wait_for(5s), std::future_status::ready);
    pollers_.erase(std::find(pollers_.begin(), pollers_.end(), p));
    // Its handlers have all run once nothing is in flight; the window goes with it.
  }
  void AddRows(std::vector<SimRow> rows) {
    std::lock_guard lock(mu_);
    for (auto& r : rows) sim_.rows.push_back(std::move(r));
  }
  std::optional<state::Cursor> StoredCursor() {
    auto c = store_->LoadCursor(IdentityFor(source_, table_));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? *c : std::nullopt;
  }
  bool CursorIs(int64_t ts, const std::string& id) {
    auto c = StoredCursor();
    return c && c->ts == ts && c->sys_id == id;
  }
  uint64_t DedupCount() {
    auto n = store_->DedupCount(table_.alias);
    return n.ok() ? *n : 0;
  }
  static std::vector<std::string> Keys(const std::vector<kafka::OutRecord>& records) {
    std::vector<std::string> out;
    out.reserve(records.size());
    for (const auto& r : records) out.push_back(r.key.value_or(""));
    return out;
  }

  state::StateStore* poller_store_ = nullptr;  // when set, what pollers commit to instead
  std::shared_ptr<EmittedIds> emitted_;        // when set, the ids a reconciliation reads
  api::HealthRegistry health_;
  ProcessOnce once_;
  PollerOptions options_;
  SimTable sim_;
  std::vector<std::shared_ptr<TablePoller>> pollers_;
};

TEST_F(TablePollerTest, EmitsEveryRowInOrderAndCommitsCursorWithDedupEntries) {
  AddRows({{kT0 + 20, Id(5)},
           {kT0 + 10, Id(1)},
           {kT0 + 10, Id(2)},
           {kT0 + 10, Id(3)},
           {kT0 + 10, Id(4)},
           {kT0 + 10, Id(9)},
           {kT0 + 30, Id(1)}});
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 7; }, 5s));
  const auto records = producer_->records();
  ASSERT_EQ(records.size(), 7u);
  EXPECT_THAT(Keys(records),
              ::testing::ElementsAre(Id(1), Id(2), Id(3), Id(4), Id(9), Id(5), Id(1)));
  EXPECT_EQ(records[0].topic, "snow.incident");
  EXPECT_EQ(records[0].timestamp_ms, (kT0 + 10) * 1000);
  const kafka::Header* op = kafka::FindHeader(records[0].headers, kOperationHeader);
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->value, "UPSERT");
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 30, Id(1)); }, 5s));
  // Entries older than cursor - overlap are pruned by the commit: only second 30 remains.
  EXPECT_EQ(DedupCount(), 1u);
  EXPECT_TRUE(p->started());
  EXPECT_EQ(p->status().Read().state, TableState::kRunning);
  // Caught up: idle sweeps keep coming, but re-reading the overlap emits nothing new.
  const auto pages = p->status().pages_fetched.load();
  ASSERT_TRUE(WaitFor([&] { return p->status().pages_fetched.load() > pages + 3; }, 5s));
  EXPECT_EQ(producer_->records().size(), 7u);
  EXPECT_GT(p->status().duplicates_suppressed.load(), 0);
  EXPECT_EQ(p->status().Read().phase, state::Phase::kStream);
}

TEST_F(TablePollerTest, QueriesFollowTheKeysetShapes) {
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 10, Id(2)}, {kT0 + 10, Id(3)}, {kT0 + 11, Id(1)}});
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 4; }, 5s));
  const auto requests = client_.requests();
  ASSERT_GE(requests.size(), 2u);
  auto q0 = SimTable::Params(requests[0].target);
  EXPECT_EQ(q0["sysparm_query"],
            "sys_updated_on>2025-12-31 23:59:59^sys_updated_on<=2026-01-01 00:01:39"
            "^ORDERBYsys_updated_on^ORDERBYsys_id");
  EXPECT_EQ(q0["sysparm_limit"], "3");
  EXPECT_EQ(q0["sysparm_no_count"], "true");
  // The full page reads on with one query: the rest of its last second OR the seconds after.
  auto q1 = SimTable::Params(requests[1].target);
  EXPECT_EQ(q1["sysparm_query"],
            "sys_updated_on=2026-01-01 00:00:10^sys_id>" + Id(3) +
                "^NQsys_updated_on>2026-01-01 00:00:10^sys_updated_on<=2026-01-01 00:01:39"
                "^ORDERBYsys_updated_on^ORDERBYsys_id");
}

TEST_F(TablePollerTest, RowsInsideTheSafetyLagWaitForTheServerClock) {
  client_.set_server_now_ms((kT0 + 50) * 1000 + 300);
  AddRows({{kT0 + 49, Id(1)}, {kT0 + 50, Id(2)}});
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  const auto pages = p->status().pages_fetched.load();
  ASSERT_TRUE(WaitFor([&] { return p->status().pages_fetched.load() > pages + 3; }, 5s));
  EXPECT_EQ(p->status().rows_emitted.load(), 1);  // second 50 is not over on the server yet
  client_.set_server_now_ms((kT0 + 51) * 1000 + 1);
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 2; }, 5s));
}

// Startup probe off, the instance's clock 120 s behind this host's, safety lag 30 s: the
// first sweep must not take this host's clock for the instance's. Until an answer carried a
// Date header the client only knows local time; the handler plays that header's part.
TEST_F(TablePollerTest, FirstSweepWaitsForTheInstanceClockWithTheProbeOff) {
  constexpr int64_t kServerNow = kT0 + 500;
  source_.safety_lag_seconds = 30;
  client_.set_server_clock_known(false);
  client_.set_server_now_ms((kServerNow + 120) * 1000);         // this host's clock
  auto date_seen = std::make_shared<std::atomic<bool>>(false);  // outlives the test body
  script_ = [this, date_seen](
                const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    if (!date_seen->exchange(true)) {
      client_.set_server_now_ms(kServerNow * 1000);
      client_.set_server_clock_known(true);
    }
    return std::nullopt;
  };
  AddRows({{kServerNow - 60, Id(1)}, {kServerNow, Id(2)}});
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  const auto sweeps = p->status().sweeps.load();
  ASSERT_TRUE(WaitFor([&] { return p->status().sweeps.load() > sweeps + 3; }, 5s));
  EXPECT_EQ(p->status().rows_emitted.load(), 1) << "a row of the instance's current second "
                                                   "was read before it was 30 s old";
  EXPECT_THAT(Keys(producer_->records()), ::testing::ElementsAre(Id(1)));
  client_.set_server_now_ms((kServerNow + 31) * 1000);
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 2; }, 5s));
}

// The table through the poller: 250 unreadable rows first, then 50 readable ones,
// pages of 100, and an X-Total-Count that counts readable rows only. All 50 arrive, and the
// socket shows what the count was found to count.
TEST_F(TablePollerTest, ReadableRowsBehindHiddenOnesArriveWhenTheCountLeavesHiddenRowsOut) {
  table_.batch_size = 100;
  std::vector<SimRow> rows;
  for (int i = 0; i < 300; ++i) rows.push_back({kT0 + 10 + i / 30, Id(static_cast<uint64_t>(i))});
  {
    std::lock_guard lock(mu_);
    sim_.count_readable_only = true;
    sim_.hidden = [](const SimRow& r) { return r.sys_id < Id(250); };
  }
  AddRows(rows);
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 50; }, 5s))
      << p->status().rows_emitted.load() << " rows emitted";
  EXPECT_EQ(producer_->records().front().key.value_or(""), Id(250));
  EXPECT_EQ(p->status().Read().count_reading, "readable_only");
  EXPECT_TRUE(health_.Snapshot().at("source.inc").ok);
}

// snow.url pointed at a clone of the instance: a new cursor, and none of the old instance's
// dedup entries, so the clone's rows (same sys_ids, same stamps) are all emitted.
TEST_F(TablePollerTest, AnotherInstanceStartsWithItsOwnCursorAndNoDedupEntries) {
  AddRows({{kT0 + 50, Id(1)}, {kT0 + 51, Id(2)}, {kT0 + 52, Id(3)}});
  auto first = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return first->status().rows_emitted.load() == 3; }, 5s));
  StopPoller(first);
  ASSERT_TRUE(CursorIs(kT0 + 52, Id(3)));
  ASSERT_GT(DedupCount(), 0u);  // the overlap's entries of the first instance
  source_.instance = "acmeclone.service-now.com";
  producer_ = std::make_shared<FakeProducer>();
  auto second = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return second->status().rows_emitted.load() == 3; }, 5s))
      << second->status().duplicates_suppressed.load() << " rows suppressed";
  // Had the old instance's dedup entries been consulted, all three would have been suppressed
  // and the wait above would time out. The suppression counter itself is not asserted: the
  // second poller's own next sweep re-reads its overlap and rightly suppresses those rows, so
  // on a loaded machine it may already be non-zero here.
  EXPECT_THAT(Keys(producer_->records()), ::testing::ElementsAre(Id(1), Id(2), Id(3)));
}

TEST_F(TablePollerTest, RestartSuppressesTheOverlapInsteadOfReEmittingIt) {
  AddRows({{kT0 + 50, Id(1)}, {kT0 + 51, Id(2)}, {kT0 + 52, Id(3)}});
  auto first = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return first->status().rows_emitted.load() == 3; }, 5s));
  StopPoller(first);
  ASSERT_TRUE(CursorIs(kT0 + 52, Id(3)));
  producer_ = std::make_shared<FakeProducer>();
  auto second = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return second->status().duplicates_suppressed.load() >= 3; }, 5s));
  EXPECT_TRUE(producer_->records().empty());
  // A new version of a row (higher mod count) is emitted.
  AddRows({{kT0 + 60, Id(2), 1}});
  ASSERT_TRUE(WaitFor([&] { return producer_->records().size() == 1; }, 5s));
}

// With parallel backfill on, a restart re-reads its overlap: rows already in Kafka, which the
// dedup window suppresses, so no delivery report follows them. When the sweep that read them
// fell behind the instance's clock (a slow answer: a 429's Retry-After), it ends in phase
// backfill and the poller considers cutting the backlog; it must not wait for those rows'
// reports. It did: the table sent no request again while its health stayed ok.
TEST_F(TablePollerTest, ParallelBackfillNeverWaitsOnSuppressedRowsAfterARestart) {
  source_.backfill_parallelism = 4;
  AddRows({{kT0 + 50, Id(1)}, {kT0 + 51, Id(2)}, {kT0 + 52, Id(3)}});
  auto first = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return first->status().rows_emitted.load() == 3; }, 5s));
  ASSERT_TRUE(WaitFor([&] { return first->status().Read().phase == state::Phase::kStream; }, 5s));
  AddRows({{kT0 + 60, Id(4)}});  // read and committed in phase stream
  ASSERT_TRUE(WaitFor([&] { return first->status().rows_emitted.load() == 4; }, 5s));
  StopPoller(first);
  ASSERT_TRUE(CursorIs(kT0 + 60, Id(4)));
  ASSERT_EQ(StoredCursor()->phase, state::Phase::kStream);
  // Beyond the first sweep's high-water mark (second 99): the next sweep reads it.
  AddRows({{kT0 + 110, Id(5)}});
  producer_ = std::make_shared<FakeProducer>();
  // The restarted poller's first request, the page of its overlap (row 4, its count equal to
  // its rows, so it ends the sweep), is answered 30 s later by the instance's clock: the
  // sweep fell behind.
  auto slow = std::make_shared<std::atomic<bool>>(false);
  script_ = [this,
             slow](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    if (!slow->exchange(true)) client_.set_server_now_ms((kT0 + 130) * 1000);
    return std::nullopt;
  };
  auto second = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return second->status().duplicates_suppressed.load() >= 1; }, 5s));
  ASSERT_TRUE(WaitFor([&] { return second->status().rows_emitted.load() == 1; }, 5s))
      << "no row after the re-read overlap; requests: " << client_.requests().size() << ", phase "
      << state::PhaseName(second->status().Read().phase);
  EXPECT_THAT(Keys(producer_->records()), ::testing::ElementsAre(Id(5)));
}

// What a parallel backfill asks the instance: the backlog's count and the counts that cut it,
// then one page request per page of rows. Each range is counted by the cut, so its last page
// asks its own X-Total-Count and ends it (no count of its last second, no empty move-on page
// and its count). After the ranges, their margin holds a few rows at the backlog's rate: the
// single sweep reads it without counting it for another cut.
TEST_F(TablePollerTest, ParallelBackfillAsksTheCutsCountsThenOnePagePerPage) {
  source_.backfill_parallelism = 4;
  table_.batch_size = 3;
  client_.set_server_now_ms((kT0 + 1000) * 1000);  // HI kT0 + 999; ranges end 60 s before
  std::vector<SimRow> rows;
  for (int i = 0; i < 48; ++i) rows.push_back({kT0 + 10 + i * 19, Id(static_cast<uint64_t>(i))});
  rows.push_back({kT0 + 950, Id(100)});  // in the margin: the single sweep's
  AddRows(rows);
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 49; }, 5s));
  ASSERT_TRUE(WaitFor([&] { return p->status().Read().phase == state::Phase::kStream; }, 5s));
  EXPECT_EQ(Keys(producer_->records()).size(), 49u);
  std::string log;
  int cut_counts = 0;    // before the first page
  int range_pages = 0;   // pages of a range: not up to the sweep's HI
  int later_counts = 0;  // counts after the first page
  std::set<std::string> range_ends;
  bool paged = false;
  for (const servicenow::InstanceRequest& r : client_.requests()) {
    const std::string target = *PercentDecode(r.target);
    log += target + "\n";
    if (target.find("sysparm_limit=1&") != std::string::npos) {
      (paged ? later_counts : cut_counts) += 1;
      continue;
    }
    paged = true;
    if (target.find(FormatSnowTimestamp(kT0 + 999)) != std::string::npos) continue;
    ++range_pages;
    const size_t at = target.find("sys_updated_on<=");
    if (at != std::string::npos) range_ends.insert(target.substr(at + 16, 19));
  }
  EXPECT_EQ(cut_counts, 1 + 3) << "the backlog's count and one round\n" << log;
  // One request per page of each range's rows, however the cut shared them out.
  ASSERT_EQ(range_ends.size(), 4u) << log;
  int pages = 0;
  int64_t from = kT0 - 1;
  for (const std::string& end : range_ends) {  // "YYYY-MM-DD hh:mm:ss" sorts by time
    const int64_t to = *ParseSnowTimestamp(end);
    int64_t n = 0;
    for (const SimRow& row : rows) n += row.ts > from && row.ts <= to ? 1 : 0;
    pages += static_cast<int>((n + 2) / 3);
    from = to;
  }
  EXPECT_EQ(range_pages, pages) << log;
  // The single sweep's tail only (its short page's last second, the empty move-on page's
  // count): no count ends a range, none counts the margin for another cut.
  EXPECT_EQ(later_counts, 2) << log;
}

// The last row read leaves the overlap (updated again with a timestamp past the high-water
// mark, or deleted): the re-read ends on an earlier row. The next idle wake must still rewind
// from the cursor, not from that earlier row: the commit of the cursor pruned the dedup
// entries older than cursor - overlap, so a deeper rewind re-emitted those rows.
TEST_F(TablePollerTest, IdleWakeNeverRewindsPastTheDedupEntriesTheCursorKept) {
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 11, Id(2)}, {kT0 + 13, Id(3)}});
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 3; }, 5s));
  // Cursor (13, 3): second 10 is below 13 - overlap, so its entry is gone.
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 13, Id(3)) && DedupCount() == 2; }, 5s));
  {
    std::lock_guard lock(mu_);
    for (SimRow& r : sim_.rows) {
      if (r.sys_id == Id(3)) r = SimRow{kT0 + 150, Id(3), 1};  // past HI (server now + 100)
    }
  }
  const auto sweeps = p->status().sweeps.load();
  ASSERT_TRUE(WaitFor([&] { return p->status().sweeps.load() > sweeps + 4; }, 5s));
  EXPECT_THAT(Keys(producer_->records()), ::testing::ElementsAre(Id(1), Id(2), Id(3)));
  // The new version arrives once the instance's clock passes it, and only it.
  client_.set_server_now_ms((kT0 + 160) * 1000);
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() >= 4; }, 5s));
  const auto later = p->status().sweeps.load();
  ASSERT_TRUE(WaitFor([&] { return p->status().sweeps.load() > later + 4; }, 5s));
  EXPECT_THAT(Keys(producer_->records()), ::testing::ElementsAre(Id(1), Id(2), Id(3), Id(3)));
}

// With reconciliation, a sweep takes an id that is in neither the id set nor the dedup index
// for a row never emitted, and emits it. The ids used to reach the set only when 10 000 were
// pending, at a stop, or at the sweep's next page, while the commit prunes the dedup entries
// older than cursor - overlap: a kill -9 then lost every id acknowledged since, and the
// sweep after the restart emitted those rows again (contract seed 5038: 21 repeats against
// the one page a kill -9 may repeat). The ids are durable once the cursor covering them is.
TEST_F(TablePollerTest, AcknowledgedIdsAreInTheIdSetOnceTheirCursorIsCommitted) {
  emitted_ = std::make_shared<EmittedIds>();
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 11, Id(2)}, {kT0 + 13, Id(3)}});
  auto p = StartPoller();
  // Cursor (13, 3): second 10 is below 13 - overlap, so row 1's dedup entry is gone.
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 13, Id(3)) && DedupCount() == 2; }, 5s));
  // Still running: nothing has stopped the poller, as a kill -9 would not.
  auto ids = store_->IdSetRange(source_.instance, table_.alias, "", "", 10);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_THAT(*ids, ::testing::ElementsAre(Id(1), Id(2), Id(3)));
  // The notes stay until the sweep's own flush: a sweep checks a held row against them.
  EXPECT_TRUE(emitted_->Noted(Id(1)));
}

// The same during a parallel backfill, whose ranges commit through their own path.
TEST_F(TablePollerTest, AcknowledgedIdsOfABackfillRangeAreInTheIdSetOnceCommitted) {
  source_.backfill_parallelism = 4;
  emitted_ = std::make_shared<EmittedIds>();
  std::vector<SimRow> rows;
  for (uint64_t i = 1; i <= 60; ++i) rows.push_back({kT0 + 10 + static_cast<int64_t>(i), Id(i)});
  AddRows(std::move(rows));
  producer_->set_mode(FakeProducer::Mode::kHold);
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return producer_->held() >= 3; }, 5s));  // the window: a page
  const auto commits = p->status().commits.load();
  producer_->AckNext(3);
  ASSERT_TRUE(WaitFor([&] { return p->status().commits.load() > commits; }, 5s));
  auto ids = store_->IdSetCount(source_.instance, table_.alias);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_GE(*ids, 1u);
  EXPECT_LT(p->status().rows_emitted.load(), 60);  // still backfilling
  producer_->AckAll();
}

TEST_F(TablePollerTest, DedupEntriesAreWrittenOnlyForAcknowledgedRows) {
  producer_->set_mode(FakeProducer::Mode::kHold);
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 11, Id(2)}});
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return producer_->held() == 2; }, 5s));
  EXPECT_EQ(DedupCount(), 0u);
  EXPECT_FALSE(StoredCursor().has_value());
  producer_->AckNext(1);
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 10, Id(1)); }, 5s));
  EXPECT_EQ(DedupCount(), 1u);
  producer_->AckAll();
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 11, Id(2)) && DedupCount() == 2; }, 5s));
}

// A full state.dir: commits fail, so the table stops producing once a window's worth of
// rows waits to be made durable, says why on its status, and resumes by itself (the retry
// timer) once commits go through again, without losing or repeating a row.
TEST_F(TablePollerTest, FailingCommitsPauseTheTableUntilTheyGoThroughAgain) {
  RefusingStore refusing(store_.get());
  poller_store_ = &refusing;
  std::vector<SimRow> rows;
  for (int i = 1; i <= 12; ++i) rows.push_back({kT0 + 10 + i, Id(i)});
  AddRows(rows);
  refusing.refuse = true;
  auto p = StartPoller();
  // batch.size is 3: three rows wait for a commit, no fourth is produced.
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 3; }, 5s));
  ASSERT_TRUE(WaitFor([&] { return refusing.refused.load() >= 3; }, 5s));  // the timer retries
  EXPECT_EQ(producer_->records().size(), 3u);
  EXPECT_FALSE(StoredCursor().has_value());
  EXPECT_THAT(p->status().Read().last_error,
              ::testing::AllOf(::testing::HasSubstr("state commit failed"),
                               ::testing::HasSubstr("only 12 KiB free")));
  refusing.refuse = false;
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 22, Id(12)); }, 5s));
  std::vector<std::string> expected;
  for (int i = 1; i <= 12; ++i) expected.push_back(Id(i));
  EXPECT_EQ(Keys(producer_->records()), expected);
  EXPECT_EQ(DedupCount(), 3u);  // seconds 20..22: the overlap of 2 s behind the cursor
}

TEST_F(TablePollerTest, ProduceFailureNeverAdvancesTheCursorAndReReads) {
  source_.overlap_seconds = 0;
  options_.initial_backoff_ms = 300;
  producer_->set_mode(FakeProducer::Mode::kHold);
  AddRows({{kT0 + 10, Id(1)},
           {kT0 + 10, Id(2)},
           {kT0 + 10, Id(3)},
           {kT0 + 11, Id(4)},
           {kT0 + 12, Id(5)}});
  table_.batch_size = 10;
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return producer_->held() == 5; }, 5s));
  producer_->AckNext(2);
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 10, Id(2)); }, 5s));
  producer_->FailNext(1);
  producer_->AckAll();  // rows 4 and 5 reach Kafka after row 3 failed
  ASSERT_TRUE(WaitFor([&] { return p->status().Read().state == TableState::kBackingOff; }, 5s));
  EXPECT_TRUE(CursorIs(kT0 + 10, Id(2)));  // never past the failed row
  EXPECT_THAT(p->status().Read().last_error, ::testing::HasSubstr("Kafka delivery failed"));
  producer_->set_mode(FakeProducer::Mode::kAckImmediately);
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 12, Id(5)); }, 5s));
  // Row 3 was produced again; rows 4 and 5 were acknowledged already and are suppressed.
  const auto keys = Keys(producer_->acknowledged());
  EXPECT_THAT(keys, ::testing::ElementsAre(Id(1), Id(2), Id(4), Id(5), Id(3)));
  EXPECT_GE(p->status().duplicates_suppressed.load(), 2);
  EXPECT_GE(p->status().retries.load(), 1);
}

TEST_F(TablePollerTest, RowOutOfOrderFailsTheTableLoudly) {
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 10, Id(2)}});
  script_ = [this](const servicenow::InstanceRequest& r) -> std::optional<servicenow::CallResult> {
    auto answer = sim_.Answer(r.target);
    std::reverse(answer.response.rows.begin(), answer.response.rows.end());  // ORDERBY ignored
    return answer;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().Read().state == TableState::kFailed; }, 5s));
  const std::string error = p->status().Read().last_error;
  EXPECT_THAT(error, ::testing::HasSubstr("table inc"));
  EXPECT_THAT(error, ::testing::HasSubstr("strictly after"));
  EXPECT_THAT(error, ::testing::HasSubstr("ORDERBY"));
  EXPECT_FALSE(health_.Snapshot().at("source.inc").ok);
  EXPECT_TRUE(p->started());
  const size_t requests = client_.request_count();
  EXPECT_FALSE(WaitFor([&] { return client_.request_count() > requests; }, 200ms));
}

TEST_F(TablePollerTest, BadRowFailsTheTableNamingHowToSkip) {
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 11, Id(2)}});
  script_ = [this](const servicenow::InstanceRequest& r) -> std::optional<servicenow::CallResult> {
    auto answer = sim_.Answer(r.target);
    if (!answer.response.rows.empty()) {
      answer.response.rows[0].as_object()["sys_updated_on"] = "yesterday";
    }
    return answer;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().Read().state == TableState::kFailed; }, 5s));
  const std::string error = p->status().Read().last_error;
  EXPECT_THAT(error, ::testing::HasSubstr("yesterday"));
  EXPECT_THAT(error, ::testing::HasSubstr("snow.source.bad.row.behavior=skip"));
  EXPECT_TRUE(producer_->records().empty());
}

TEST_F(TablePollerTest, BadRowIsSkippedAndCountedUnderSkip) {
  source_.bad_row = BadRowBehavior::kSkip;
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 11, Id(2)}, {kT0 + 12, Id(3)}});
  script_ = [this](const servicenow::InstanceRequest& r) -> std::optional<servicenow::CallResult> {
    auto answer = sim_.Answer(r.target);
    for (auto& row : answer.response.rows) {
      if (row.as_object()["sys_id"].as_string() == Id(2)) row.as_object()["sys_id"] = "";
    }
    return answer;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 2; }, 5s));
  EXPECT_GE(p->status().rows_skipped.load(), 1);
  EXPECT_THAT(Keys(producer_->records()), ::testing::ElementsAre(Id(1), Id(3)));
  EXPECT_NE(p->status().Read().state, TableState::kFailed);
}

TEST_F(TablePollerTest, HiddenRowsNeverStallThePoller) {
  table_.batch_size = 4;
  std::vector<SimRow> rows;
  rows.reserve(60);
  for (int i = 0; i < 60; ++i) rows.push_back({kT0 + 10 + i / 7, Id(100 + i)});
  AddRows(rows);
  {
    std::lock_guard lock(mu_);
    sim_.hidden = [](const SimRow& r) { return r.sys_id < Id(112) || r.sys_id.back() == '3'; };
  }
  size_t visible = 0;
  for (const auto& r : rows) visible += (r.sys_id < Id(112) || r.sys_id.back() == '3') ? 0 : 1;
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor(
      [&] { return p->status().rows_emitted.load() == static_cast<int64_t>(visible); }, 5s));
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 18, Id(159)); }, 5s));
  const auto keys = Keys(producer_->records());
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

TEST_F(TablePollerTest, RetryableErrorsBackOffAndRecover) {
  AddRows({{kT0 + 10, Id(1)}});
  // Shared, not captured by reference: the poller keeps calling the script after the test
  // body returns, until TearDown stops it.
  auto failures = std::make_shared<std::atomic<int>>(2);
  script_ =
      [failures](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    if (failures->fetch_sub(1) > 0) {
      return FakeTableClient::Failure(servicenow::OutcomeClass::kRetryable, 503, "busy");
    }
    return std::nullopt;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  EXPECT_GE(p->status().retries.load(), 2);
  EXPECT_GT(p->status().throttled_ms.load(), 0);
  EXPECT_EQ(p->status().Read().state, TableState::kRunning);
}

// An instance that cannot be reached at start: the table backs off on its probe, and health
// says not ok, with the cause, until the instance answers; then ok again by itself.
TEST_F(TablePollerTest, BackingOffIsNotOkUntilTheInstanceAnswersAgain) {
  source_.startup_probe = true;
  AddRows({{kT0 + 10, Id(1)}});
  auto down = std::make_shared<std::atomic<bool>>(true);  // outlives the test body, as above
  script_ = [down](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    if (down->load()) {
      return FakeTableClient::Failure(servicenow::OutcomeClass::kRetryable, 0,
                                      "request not sent: Couldn't connect to server");
    }
    return std::nullopt;
  };
  auto p = StartPoller();
  const auto component = [&] { return health_.Snapshot().at("source.inc"); };
  ASSERT_TRUE(
      WaitFor([&] { return health_.Snapshot().contains("source.inc") && !component().ok; }, 5s));
  EXPECT_THAT(component().detail, ::testing::HasSubstr("backing_off"));
  EXPECT_THAT(component().detail, ::testing::HasSubstr("Couldn't connect to server"));
  EXPECT_FALSE(p->started());
  *down = false;
  ASSERT_TRUE(WaitFor([&] { return component().ok; }, 5s)) << component().detail;
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  EXPECT_TRUE(p->started());
  EXPECT_EQ(component().detail, "running");
}

// A certificate the client refuses ends each call as PERMANENT without an HTTP answer. The
// table is not at fault: it backs off (not ok, naming the cause) instead of failing for good,
// and carries on once the instance can be reached again.
TEST_F(TablePollerTest, AnInstanceThatCannotBeReachedAtAllIsWaitedForNotFailedOn) {
  source_.startup_probe = true;
  AddRows({{kT0 + 10, Id(1)}});
  auto broken = std::make_shared<std::atomic<bool>>(true);  // outlives the test body
  script_ = [broken](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    if (!broken->load()) return std::nullopt;
    servicenow::CallResult r = FakeTableClient::Failure(
        servicenow::OutcomeClass::kPermanent, 0,
        "cannot talk to the instance: SSL peer certificate or SSH remote key was not OK");
    r.instance_unreachable = true;
    return r;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().Read().state == TableState::kBackingOff; }, 5s));
  const auto component = [&] { return health_.Snapshot().at("source.inc"); };
  EXPECT_FALSE(component().ok);
  EXPECT_THAT(component().detail, ::testing::HasSubstr("could not reach the instance"));
  EXPECT_THAT(component().detail, ::testing::HasSubstr("certificate"));
  EXPECT_THAT(component().detail, ::testing::Not(::testing::HasSubstr("no such table")));
  *broken = false;
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  EXPECT_TRUE(component().ok);
}

TEST_F(TablePollerTest, StopWaitsForInFlightRowsAndCommitsThem) {
  producer_->set_mode(FakeProducer::Mode::kHold);
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 11, Id(2)}, {kT0 + 12, Id(3)}});
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return producer_->held() == 3; }, 5s));
  auto done = p->Stop();
  EXPECT_NE(done.wait_for(0ms), std::future_status::ready);
  producer_->AckAll();
  ASSERT_EQ(done.wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(CursorIs(kT0 + 12, Id(3)));
  EXPECT_EQ(DedupCount(), 3u);
  EXPECT_EQ(p->status().Read().state, TableState::kStopped);
  pollers_.clear();
}

TEST_F(TablePollerTest, ProbeRefusedWithForbiddenFailsTheTable) {
  source_.startup_probe = true;
  script_ = [](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    return FakeTableClient::Failure(servicenow::OutcomeClass::kPermission, 403,
                                    "Insufficient rights to query records");
  };
  auto p = StartPoller();
  // One snapshot for the state and its reason: waiting on the state alone and then reading
  // the status again failed once under ASan load (the reason was not there on that read).
  decltype(p->status().Read()) failed;
  ASSERT_TRUE(WaitFor(
      [&] {
        failed = p->status().Read();
        return failed.state == TableState::kFailed;
      },
      5s));
  EXPECT_THAT(failed.last_error, ::testing::HasSubstr("403"));
  EXPECT_THAT(failed.last_error, ::testing::HasSubstr("incident"));
  EXPECT_TRUE(p->started());
  EXPECT_EQ(client_.request_count(), 1u);
}

TEST_F(TablePollerTest, ProbeSeeingNoTimestampFieldBlamesAnAcl) {
  source_.startup_probe = true;
  AddRows({{kT0 + 10, Id(1)}});
  script_ = [this](const servicenow::InstanceRequest& r) -> std::optional<servicenow::CallResult> {
    auto answer = sim_.Answer(r.target);
    for (auto& row : answer.response.rows) row.as_object().erase("sys_updated_on");
    return answer;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().Read().state == TableState::kFailed; }, 5s));
  EXPECT_THAT(p->status().Read().last_error, ::testing::HasSubstr("ACL"));
  EXPECT_THAT(p->status().Read().last_error, ::testing::HasSubstr("sys_updated_on"));
}

TEST_F(TablePollerTest, ProbeThenTimeZoneLookupThenPolling) {
  source_.startup_probe = true;
  options_.username = "svc.kafka";
  AddRows({{kT0 + 10, Id(1)}});
  script_ = [](const servicenow::InstanceRequest& r) -> std::optional<servicenow::CallResult> {
    if (r.target.starts_with("/api/now/table/sys_user")) {
      boost::json::array rows;
      rows.push_back(boost::json::object{{"time_zone", "Europe/Berlin"}});
      return FakeTableClient::List(std::move(rows));
    }
    return std::nullopt;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  const auto requests = client_.requests();
  ASSERT_GE(requests.size(), 3u);
  EXPECT_THAT(requests[0].target, ::testing::HasSubstr("sysparm_limit=1&"));
  EXPECT_THAT(requests[0].target,
              ::testing::HasSubstr("sysparm_fields=sys_id%2Csys_updated_on%2Csys_mod_count"));
  EXPECT_THAT(requests[1].target, ::testing::HasSubstr("/api/now/table/sys_user?"));
  EXPECT_THAT(requests[1].target, ::testing::HasSubstr("svc.kafka"));
}

TEST_F(TablePollerTest, CursorOfAnotherQueryIsRefused) {
  state::CursorIdentity other = IdentityFor(source_, table_);
  other.query_fingerprint = "0000000000000000";
  auto window = store_->LoadDedupWindow(other, {});
  ASSERT_TRUE(window.ok());
  ASSERT_TRUE(store_->Commit(other, state::Cursor{kT0, Id(1)}, **window).ok());
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().Read().state == TableState::kFailed; }, 5s));
  EXPECT_THAT(p->status().Read().last_error, ::testing::HasSubstr("0000000000000000"));
  EXPECT_EQ(client_.request_count(), 0u);
}

// Refused credentials after a fresh token concern the instance, not the table: the table waits
// (not ok, naming the cause) instead of failing for good, and goes on once they are accepted.
TEST_F(TablePollerTest, CredentialsRefusedAfterAFreshTokenPauseTheTableInsteadOfFailingIt) {
  source_.startup_probe = true;  // the probe's answer; the matrix below covers the pages
  AddRows({{kT0 + 10, Id(1)}});
  auto refused = std::make_shared<std::atomic<bool>>(true);  // outlives the test body
  script_ = [refused](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    if (!refused->load()) return std::nullopt;
    servicenow::CallResult r = FakeTableClient::Failure(servicenow::OutcomeClass::kUnauthorized,
                                                        401, "User Not Authenticated");
    r.instance_unreachable = true;
    return r;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor(
      [&] {
        return p->status().Read().state == TableState::kBackingOff &&
               p->status().retries.load() >= 2;
      },
      5s))
      << TableStateName(p->status().Read().state) << ": " << p->status().Read().last_error;
  EXPECT_THAT(p->status().Read().last_error, ::testing::HasSubstr("credentials were refused"));
  EXPECT_FALSE(health_.Snapshot().at("source.inc").ok);
  *refused = false;
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  EXPECT_EQ(p->status().Read().state, TableState::kRunning);
}

// Finding: a Retry-After longer than the client's elapsed budget was forgotten; the poller
// then retried on its own backoff (here 10 ms). It waits at least what the instance asked
// and shows the wait (backoff_ms on the socket).
TEST_F(TablePollerTest, BackOffWaitsTheInstancesRetryAfterAndShowsIt) {
  AddRows({{kT0 + 10, Id(1)}});
  struct Sent {
    std::mutex mu;
    std::vector<std::chrono::steady_clock::time_point> at;
  };
  auto sent = std::make_shared<Sent>();  // outlives the test body
  script_ = [sent](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    std::lock_guard lock(sent->mu);
    sent->at.push_back(std::chrono::steady_clock::now());
    if (sent->at.size() > 1) return std::nullopt;
    servicenow::CallResult r =
        FakeTableClient::Failure(servicenow::OutcomeClass::kRetryable, 429, "Too many requests");
    r.response.retry_after_ms = 400;
    return r;
  };
  auto p = StartPoller();
  ASSERT_TRUE(WaitFor([&] { return p->status().backoff_ms.load() > 0; }, 5s));
  EXPECT_EQ(p->status().backoff_ms.load(), 400);
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s));
  EXPECT_EQ(p->status().backoff_ms.load(), 0);
  std::lock_guard lock(sent->mu);
  ASSERT_GE(sent->at.size(), 2u);
  EXPECT_GE(sent->at[1] - sent->at[0], 390ms);
}

// The GET page column of the outcome matrix (docs/outcomes.md): each failure of the catalogue,
// classified by the real classifier and answered to every read of the table, ends as the
// decision table says: success (the poller keeps sweeping), hold and pause (it backs off,
// stores no cursor, and carries on by itself once the instance answers), or the table stops.
class PageOutcomeTest : public TablePollerTest, public ::testing::WithParamInterface<size_t> {};

TEST_P(PageOutcomeTest, TheGetPageCellEndsAsTheTableSays) {
  using servicenow::Action;
  using servicenow::CallPurpose;
  const servicenow::FailureCase& failure = servicenow::FailureCatalogue()[GetParam()];
  SCOPED_TRACE(std::string(failure.name));
  const servicenow::Outcome outcome = servicenow::OutcomeOf(failure, CallPurpose::kGetPage);
  auto broken = std::make_shared<std::atomic<bool>>(  // outlives the test body
      !failure.kafka_produce && !(failure.once && outcome.client_retries));
  auto answer = std::make_shared<servicenow::CallResult>(
      FakeTableClient::FinalAnswer(failure, CallPurpose::kGetPage));
  // The instance's Retry-After is honoured; scaled down so the cell takes ms.
  if (answer->response.retry_after_ms) answer->response.retry_after_ms = 50;
  script_ = [broken,
             answer](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    if (!broken->load()) return std::nullopt;
    return *answer;
  };
  if (failure.kafka_produce) producer_->set_mode(FakeProducer::Mode::kFailAll);
  AddRows({{kT0 + 10, Id(1)}});
  auto p = StartPoller();
  const auto state = [&] { return p->status().Read().state; };
  switch (outcome.action) {
    case Action::kSuccess:
      ASSERT_TRUE(WaitFor([&] { return p->status().sweeps.load() >= 2; }, 5s))
          << TableStateName(state()) << " " << p->status().Read().last_error << " requests "
          << client_.request_count() << " " << client_.requests().back().target;
      EXPECT_EQ(state(), TableState::kRunning);
      EXPECT_EQ(p->status().retries.load(), 0);
      break;
    case Action::kHold:
    case Action::kPauseInstance: {
      ASSERT_TRUE(WaitFor(
          [&] { return state() == TableState::kBackingOff && p->status().retries.load() >= 2; },
          5s))
          << TableStateName(state()) << ": " << p->status().Read().last_error;
      const std::string error = p->status().Read().last_error;
      const bool names_instance = error.find("could not reach the instance") != std::string::npos ||
                                  error.find("credentials were refused") != std::string::npos;
      EXPECT_EQ(names_instance, outcome.action == Action::kPauseInstance) << error;
      if (answer->response.retry_after_ms) {
        EXPECT_TRUE(WaitFor([&] { return p->status().backoff_ms.load() == 50; }, 5s))
            << "waits what Retry-After asks";
      }
      EXPECT_FALSE(health_.Snapshot().at("source.inc").ok);
      EXPECT_EQ(p->status().rows_emitted.load(), 0);
      *broken = false;
      producer_->set_mode(FakeProducer::Mode::kAckImmediately);
      ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 1; }, 5s)) << "resumes";
      ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 10, Id(1)); }, 5s));
      break;
    }
    case Action::kStopTable:
      ASSERT_TRUE(WaitFor([&] { return state() == TableState::kFailed; }, 5s))
          << TableStateName(state());
      EXPECT_FALSE(health_.Snapshot().at("source.inc").ok);
      EXPECT_EQ(p->status().rows_emitted.load(), 0);
      EXPECT_FALSE(StoredCursor().has_value());
      break;
    default:
      FAIL() << "a page cannot end in " << servicenow::ActionName(outcome.action);
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, PageOutcomeTest,
                         ::testing::Range<size_t>(0, servicenow::FailureCatalogue().size()));

// The register schema column of the outcome matrix (docs/outcomes.md, the Schema Registry's
// calls): each failure of the registry's catalogue, made real by the registry double and met
// by the real client through the source's registrar (a key.format=avro table registers its key
// schema before its first row), ends as the table says: the table backs off with the
// registry's answer, produces nothing, keeps its cursor, and goes on by itself with every row
// once the registry answers again.
class RegisterSchemaOutcomeTest : public TablePollerTest,
                                  public ::testing::WithParamInterface<size_t> {
 protected:
  void TearDown() override {
    TablePollerTest::TearDown();
    registry_.Stop();
  }

  void Knob(const std::string& query) {
    const auto answer = testsupport::PostEmpty(registry_.base_url() + "/_registry/fail?" + query);
    ASSERT_EQ(answer.status, 200) << answer.body;
  }

  registry::RegistryServer registry_{registry::RegistryServerOptions{}};
  testsupport::RefusingPort refusing_;
};

TEST_P(RegisterSchemaOutcomeTest, TheRegisterSchemaCellEndsAsTheTableSays) {
  using servicenow::Action;
  const schema_registry::RegistryFailure& f =
      schema_registry::RegistryFailureCatalogue()[GetParam()];
  SCOPED_TRACE(std::string(f.name));
  const Action action = servicenow::Decide(schema_registry::RegistryFinalOf(f).verdict,
                                           servicenow::CallPurpose::kRegisterSchema);
  ASSERT_EQ(action, Action::kHold) << "a registry failure never drops or stops a table";

  ASSERT_TRUE(registry_.Start().ok());
  schema_registry::RegistryOptions o;
  o.url = registry_.base_url();
  o.retry.max_attempts = 2;
  o.retry.initial_backoff_ms = 1;
  o.retry.max_backoff_ms = 5;
  o.connect_timeout_ms = 3000;
  o.request_timeout_ms = 3000;
  bool healable = true;
  if (f.http_status != 0) {
    char* body = curl_easy_escape(nullptr, f.body.data(), static_cast<int>(f.body.size()));
    Knob("count=-1&status=" + std::to_string(f.http_status) + "&body=" + body);
    curl_free(body);
  } else if (f.timed_out) {
    o.request_timeout_ms = 200;
    Knob("count=-1&status=503&delay_ms=1000");
  } else {
    healable = false;
    if (f.name == "connection refused") {
      o.url = refusing_.http_url();
    } else if (f.name == "DNS failure") {
      o.url = "http://registry.snowcar-test.invalid:8081";
    } else if (f.name == "TLS failure") {
      o.url = "https://127.0.0.1:" + std::to_string(registry_.port());
    } else {
      FAIL() << "no way to make " << f.name << " happen";
    }
  }
  auto client = schema_registry::SchemaRegistryClient::Create(o);
  ASSERT_TRUE(client.ok());
  options_.registrar = MakeSchemaRegistrar(std::move(client).value(), o);
  source_.key_format = RecordFormat::kAvro;
  AddRows({{kT0 + 10, Id(1)}, {kT0 + 11, Id(2)}});
  auto p = StartPoller();
  const auto state = [&] { return p->status().Read().state; };

  ASSERT_TRUE(WaitFor(
      [&] { return state() == TableState::kBackingOff && p->status().retries.load() >= 2; }, 10s))
      << TableStateName(state()) << ": " << p->status().Read().last_error;
  EXPECT_NE(p->status().Read().last_error.find("schema registry"), std::string::npos)
      << p->status().Read().last_error;
  EXPECT_FALSE(health_.Snapshot().at("source.inc").ok);
  EXPECT_EQ(p->status().rows_emitted.load(), 0);
  EXPECT_TRUE(producer_->records().empty()) << "no row is produced without its schema";
  EXPECT_FALSE(StoredCursor().has_value()) << "the cursor does not move";
  // It grows: a registry that keeps refusing is not asked at the initial pace forever.
  ASSERT_TRUE(WaitFor([&] { return p->status().retries.load() >= 4; }, 10s));
  EXPECT_GT(p->status().throttled_ms.load(), 10 * p->status().retries.load())
      << "waits longer than the initial 10 ms each time";
  if (!healable) return;

  Knob("count=0");  // the registry answers again
  ASSERT_TRUE(WaitFor([&] { return p->status().rows_emitted.load() == 2; }, 10s))
      << TableStateName(state()) << ": " << p->status().Read().last_error;
  ASSERT_TRUE(WaitFor([&] { return CursorIs(kT0 + 11, Id(2)); }, 5s));
  const auto records = producer_->records();
  ASSERT_EQ(records.size(), 2u) << "every row, once";
  for (const auto& r : records) {
    ASSERT_TRUE(r.key.has_value());
    EXPECT_TRUE(schema_registry::LooksFramed(*r.key)) << "the key carries the registered id";
  }
  EXPECT_EQ(state(), TableState::kRunning);
}

INSTANTIATE_TEST_SUITE_P(
    RegistryCatalogue, RegisterSchemaOutcomeTest,
    ::testing::Range<size_t>(0, schema_registry::RegistryFailureCatalogue().size()));

}  // namespace
}  // namespace snowcar::source
