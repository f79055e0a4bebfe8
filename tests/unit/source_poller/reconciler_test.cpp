// SPDX-License-Identifier: Apache-2.0
// A table's reconciliation sweeps (reconciler.h) on a small thread pool, against a simulated
// instance behind FakeTableClient (ids in sys_id order, rows an ACL hides after the limit),
// a fake producer and a real state store.
#include "source/deletes/reconciler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <map>
#include <set>
#include <thread>

#include "pool_rig.h"
#include "sim_table.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"
#include "support/fake_producer.h"
#include "support/fake_table_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::source {
namespace {

using namespace std::chrono_literals;
using testing::kT0;
using testing::SimTable;
using testsupport::FakeProducer;
using testsupport::FakeTableClient;
using testsupport::WaitFor;

// A 32-hex sys_id that sorts like n (sim_table.h).
std::string Rid(uint64_t n) { return testing::Id(n); }

struct InstanceRow {
  int64_t ts = 0;
  uint32_t mod = 0;
  bool hidden = false;  // an ACL hides it from the integration user
};

class ReconcilerTest : public testing::PoolRig {
 protected:
  ReconcilerTest() : PoolRig("reconciler") {}
  void SetUp() override {
    PoolRig::SetUp();
    table_.deletes = DeleteCapture::kReconcile;
    table_.reconcile_batch_size = 5;
    table_.reconcile_interval_ms = int64_t{3600} * 1000;
  }
  void TearDown() override {
    if (reconciler_) reconciler_->Stop();
    StopPool();
  }

  // Answers the sweep's three requests the way an instance would: a page of ids after a
  // position (the limit applies before the ACL, so a page may come back short), and rows by
  // id, only the id or the table's fields.
  servicenow::CallResult Answer(const servicenow::InstanceRequest& r) override {
    std::lock_guard lock(mu_);
    if (script_) {
      if (auto scripted = script_(r)) return *scripted;
    }
    auto params = SimTable::Params(r.target);
    const std::string query = params["sysparm_query"];
    const bool only_id = params["sysparm_fields"] == "sys_id";
    boost::json::array rows;
    auto row = [&](const std::string& id, const InstanceRow& v) {
      boost::json::object o{{"sys_id", id}};
      if (!only_id) {
        o["sys_updated_on"] = FormatSnowTimestamp(v.ts);
        o["sys_mod_count"] = std::to_string(v.mod);
      }
      return o;
    };
    if (const size_t in = query.find("sys_idIN"); in != std::string::npos) {
      std::string list = query.substr(in + 8);
      list = list.substr(0, list.find('^'));
      size_t begin = 0;
      while (begin <= list.size()) {
        const size_t comma = list.find(',', begin);
        const std::string id =
            list.substr(begin, comma == std::string::npos ? comma : comma - begin);
        auto it = rows_.find(id);
        if (it != rows_.end() && !it->second.hidden) rows.push_back(row(id, it->second));
        if (comma == std::string::npos) break;
        begin = comma + 1;
      }
      if (on_read_) on_read_(only_id);
      return FakeTableClient::List(std::move(rows));
    }
    std::string after;
    if (const size_t gt = query.find("sys_id>"); gt != std::string::npos) {
      after = query.substr(gt + 7, 32);
    }
    const int limit = std::stoi(params["sysparm_limit"]);
    int taken = 0;
    for (auto it = rows_.upper_bound(after); it != rows_.end() && taken < limit; ++it, ++taken) {
      if (!it->second.hidden) rows.push_back(row(it->first, it->second));
    }
    return FakeTableClient::List(std::move(rows));
  }

  void Emitted(const std::vector<std::string>& ids) {
    ASSERT_TRUE(store_->UpdateIdSet(source_.instance, table_.alias, ids, {}).ok());
  }
  void StoreSweep(bool in_sweep) {
    SweepState state;
    state.seeded = true;  // a baseline was taken: ids never emitted are emitted
    state.in_sweep = in_sweep;
    if (in_sweep) state.started_at_ms = SystemClock::Instance().NowMillis();
    ASSERT_TRUE(
        store_->PutSweepState(source_.instance, table_.alias, EncodeSweepState(state)).ok());
  }
  // What the row stream leaves behind once Kafka acknowledged a version and it committed.
  void RowStreamCommitted(const std::string& id, int64_t ts, uint32_t mod) {
    const state::CursorIdentity identity = IdentityFor(source_, table_);
    auto window = store_->LoadDedupWindow(identity, state::DedupPolicy{});
    ASSERT_TRUE(window.ok());
    (*window)->Insert(state::DedupKey{ts, id, mod});
    ASSERT_TRUE(
        store_->Commit(identity, state::Cursor{ts, id, state::Phase::kStream}, **window).ok());
  }
  void StartReconciler() {
    Reconciler::Deps deps;
    deps.io = &io_;
    deps.client = &client_;
    deps.producer = producer_;
    deps.store = store_.get();
    deps.source = &source_;
    deps.table = &table_;
    deps.watermark = watermark_;
    deps.emitted = emitted_;
    reconciler_ = std::make_shared<Reconciler>(std::move(deps));
    reconciler_->Start();
  }
  bool SweepsDone(uint64_t n) { return reconciler_->Read().state.sweeps >= n; }
  // The DELETE and tombstone the audit stream makes of a DELETED entry of second `at`.
  std::vector<kafka::OutRecord> AuditDelete(const std::string& id, int64_t at) {
    DeletesStream stream;
    stream.rows = &table_;
    SourceSettings source = source_;
    source.emit_tombstones = true;
    const boost::json::object entry{
        {"sys_id", Rid(900)},     {"sys_created_on", FormatSnowTimestamp(at)},
        {"sys_mod_count", "0"},   {"tablename", table_.name},
        {"fieldname", "DELETED"}, {"documentkey", id},
        {"user", "alice"}};
    return AuditRecords(entry, RowKey{at, Rid(900), 0}, stream, source, at * 1000);
  }
  // Record keys by operation header ("UPSERT", "DELETE").
  std::map<std::string, std::vector<std::string>> Produced() const {
    std::map<std::string, std::vector<std::string>> out;
    for (const kafka::OutRecord& r : producer_->records()) {
      const kafka::Header* h = kafka::FindHeader(r.headers, kOperationHeader);
      out[h != nullptr && h->value ? *h->value : ""].push_back(r.key.value_or(""));
    }
    return out;
  }

  std::shared_ptr<RowWatermark> watermark_ = std::make_shared<RowWatermark>();
  std::shared_ptr<EmittedIds> emitted_ = std::make_shared<EmittedIds>();
  std::shared_ptr<Reconciler> reconciler_;

  std::map<std::string, InstanceRow> rows_;    // by sys_id
  std::function<void(bool only_id)> on_read_;  // runs as a read by id is answered
};

TEST_F(ReconcilerTest, AShortPageGoesOnByKeysetUntilAnEmptyPage) {
  // Pages of five ids; the first shows three (two hidden by an ACL). A row never emitted
  // lies on the fourth page and a row gone from the instance past the last one.
  std::vector<std::string> emitted;
  for (int n = 1; n <= 20; ++n) {
    const bool hidden = n == 2 || n == 3;
    rows_[Rid(n)] = InstanceRow{kT0 + 10, 0, hidden};
    if (!hidden && n != 17) emitted.push_back(Rid(n));
  }
  emitted.push_back(Rid(30));
  Emitted(emitted);
  StoreSweep(false);
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  const auto produced = Produced();
  EXPECT_THAT(produced.count("UPSERT") ? produced.at("UPSERT") : std::vector<std::string>{},
              ::testing::ElementsAre(Rid(17)));
  EXPECT_THAT(produced.count("DELETE") ? produced.at("DELETE") : std::vector<std::string>{},
              ::testing::ElementsAre(Rid(30)));
  // Every readable id was compared, not only the first page's.
  EXPECT_EQ(reconciler_->Read().state.last_compared, 18u);
  // The confirmation read asked for the one id past the end, not the rest of the set.
  size_t confirmed = 0;
  for (const auto& r : client_.requests()) {
    if (r.target.find("sys_idIN") != std::string::npos &&
        r.target.find("sysparm_fields=sys_id") != std::string::npos) {
      ++confirmed;
      EXPECT_EQ(SimTable::Params(r.target)["sysparm_query"], "sys_idIN" + Rid(30));
    }
  }
  EXPECT_EQ(confirmed, 1u);
}

TEST_F(ReconcilerTest, AnAnswerThatIsNotAListDeletesNothing) {
  std::vector<std::string> ids;
  for (int n = 1; n <= 5; ++n) {
    rows_[Rid(n)] = InstanceRow{kT0 + 10, 0, false};
    ids.push_back(Rid(n));
  }
  Emitted(ids);
  StoreSweep(false);
  // HTTP 200 with one record where a list belongs: no rows to go by.
  script_ = [](const servicenow::InstanceRequest&) -> std::optional<servicenow::CallResult> {
    return FakeTableClient::Record(boost::json::object{{"sys_id", Rid(1)}});
  };
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor(
      [&] { return !reconciler_->Read().last_error.empty() || !producer_->records().empty(); },
      5s));
  EXPECT_THAT(Produced()["DELETE"], ::testing::IsEmpty()) << "rows the instance still has";
  EXPECT_THAT(reconciler_->Read().last_error, ::testing::HasSubstr("not a list"));
  EXPECT_EQ(reconciler_->Read().state.deleted, 0u);
  auto left = store_->IdSetCount(source_.instance, table_.alias);
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(*left, 5u);
}

TEST_F(ReconcilerTest, ARowNeverEmittedIsEmittedOnce) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  rows_[Rid(2)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1)});
  StoreSweep(false);
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  EXPECT_THAT(Produced()["UPSERT"], ::testing::ElementsAre(Rid(2)));
}

TEST_F(ReconcilerTest, ARowTheRowStreamEmittedNewerMeanwhileIsNotPublishedStale) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  rows_[Rid(2)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1)});
  StoreSweep(false);
  // The sweep reads row 2 at version 0; before it produces it, the row is updated and the
  // row stream emits version 1 and commits.
  on_read_ = [&](bool only_id) {
    if (!only_id) RowStreamCommitted(Rid(2), kT0 + 20, 1);
  };
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  EXPECT_TRUE(Produced()["UPSERT"].empty()) << "version 0 would land after version 1";
}

TEST_F(ReconcilerTest, ARowTheRowStreamAcknowledgedMeanwhileIsNotPublishedAgain) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  rows_[Rid(2)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1)});
  StoreSweep(false);
  // Acknowledged by Kafka, not committed yet: only the note says the row stream emitted it.
  on_read_ = [&](bool only_id) {
    if (!only_id) emitted_->Add(Rid(2));
  };
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  EXPECT_TRUE(Produced()["UPSERT"].empty());
}

// deletes=audit+reconcile: the audit stream's DELETE of a row is acknowledged while the sweep
// that found the row gone confirms it (both wait for the same row-stream gate). The sweep must
// not emit the deletion a second time.
TEST_F(ReconcilerTest, ADeletionTheAuditStreamEmittedMeanwhileIsNotEmittedAgain) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1), Rid(2), Rid(3)});  // rows 2 and 3 are gone from the instance
  StoreSweep(false);
  on_read_ = [&](bool only_id) {
    if (only_id) emitted_->Remove(Rid(2));  // the audit stream's DELETE, acknowledged
  };
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  EXPECT_THAT(Produced()["DELETE"], ::testing::ElementsAre(Rid(3)));
  EXPECT_EQ(reconciler_->Read().state.last_deleted, 1u);
}

// The same, with the audit stream's note already flushed into the id set by its poller.
TEST_F(ReconcilerTest, ADeletionFlushedByTheAuditStreamMeanwhileIsNotEmittedAgain) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1), Rid(2), Rid(3)});
  StoreSweep(false);
  on_read_ = [&](bool only_id) {
    if (!only_id) return;
    emitted_->Remove(Rid(2));
    ASSERT_TRUE(emitted_->Flush(*store_, source_.instance, table_.alias).ok());
  };
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  EXPECT_THAT(Produced()["DELETE"], ::testing::ElementsAre(Rid(3)));
}

// deletes=audit+reconcile, the other way round (contract seed 119): the audit stream produced
// its DELETE of a row but Kafka has not acknowledged it yet, so the id is still in the set when
// the sweep that found the row gone checks it. The sweep must not emit the deletion again.
TEST_F(ReconcilerTest, ADeletionTheAuditStreamHasInFlightIsNotEmittedAgain) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1), Rid(2), Rid(3)});
  StoreSweep(false);
  on_read_ = [&](bool only_id) {
    if (!only_id) return;
    // The audit stream's records of the deletion of row 2, as its poller produces them.
    std::vector<kafka::OutRecord> audit = AuditDelete(Rid(2), kT0 + 50);
    DropDeletionTheSweepEmitted(audit, kT0 + 50, *emitted_);
    EXPECT_EQ(audit.size(), 2u);  // produced: nothing acknowledged, nothing noted
  };
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  EXPECT_THAT(Produced()["DELETE"], ::testing::ElementsAre(Rid(3)));
}

// deletes=audit+reconcile, seed 119's failing runs: the sweep emits a deletion first, and the
// audit stream reads the row's DELETED entry afterwards (both wait for the same gate, in any
// order). The audit stream must not emit it again; a later deletion (after a restore) it must.
TEST_F(ReconcilerTest, ADeletionTheSweepEmittedIsNotEmittedAgainByTheAuditStream) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1), Rid(2)});
  StoreSweep(false);
  watermark_->Publish(kT0 + 1000);
  StartReconciler();
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  ASSERT_THAT(Produced()["DELETE"], ::testing::ElementsAre(Rid(2)));
  // The sweep saw row 2 gone at the instance's clock, kT0 + 100; it was deleted before.
  std::vector<kafka::OutRecord> audit = AuditDelete(Rid(2), kT0 + 99);
  DropDeletionTheSweepEmitted(audit, kT0 + 99, *emitted_);
  EXPECT_TRUE(audit.empty());
  // A deletion after the sweep looked is another one (the row came back meanwhile).
  audit = AuditDelete(Rid(2), kT0 + 101);
  DropDeletionTheSweepEmitted(audit, kT0 + 101, *emitted_);
  EXPECT_EQ(audit.size(), 2u);
}

TEST_F(ReconcilerTest, ASweepResumedBeforeTheRowStreamAcknowledgedASweepWaitsForIt) {
  rows_[Rid(1)] = InstanceRow{kT0 + 10, 0, false};
  rows_[Rid(2)] = InstanceRow{kT0 + 10, 0, false};
  Emitted({Rid(1)});
  StoreSweep(/*in_sweep=*/true);  // a restart in the middle of a sweep
  StartReconciler();
  // No watermark yet: the sweep asks nothing (it used to compare rows with INT64_MIN - 2).
  EXPECT_FALSE(WaitFor([&] { return client_.request_count() > 0; }, 1500ms));
  EXPECT_TRUE(producer_->records().empty());
  watermark_->Publish(kT0 + 1000);
  ASSERT_TRUE(WaitFor([&] { return SweepsDone(1); }, 10s)) << reconciler_->Read().last_error;
  EXPECT_THAT(Produced()["UPSERT"], ::testing::ElementsAre(Rid(2)));
}

TEST(ReconcileRows, RowsPastTheRowStreamsSweepAreLeftToIt) {
  EXPECT_FALSE(LeftToRowStream(kT0, kT0 + 10));
  EXPECT_FALSE(LeftToRowStream(kT0 + 8, kT0 + 10));
  EXPECT_TRUE(LeftToRowStream(kT0 + 9, kT0 + 10));  // still in the row stream's overlap
  // Before the row stream acknowledged any sweep every row is its own (no overflow).
  EXPECT_TRUE(LeftToRowStream(kT0, RowWatermark::kNone));
  EXPECT_TRUE(LeftToRowStream(std::numeric_limits<int64_t>::min(), RowWatermark::kNone));
}

}  // namespace
}  // namespace snowcar::source
