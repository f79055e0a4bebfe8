// SPDX-License-Identifier: Apache-2.0
// Reconciliation (snow.table.<alias>.deletes=reconcile) with the real sidecar against the
// emulator: deletions the audit trail never shows (the Table Cleaner) and an undelete are
// found within one sweep; rows updated while a sweep runs are never taken for deletions; a
// sweep killed half-way resumes where it stood.
#include <gmock/gmock.h>

#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "snowcar/common/url_host.h"
#include "snowcar/state/state_store.h"
#include "source_harness.h"

namespace snowcar::source::it {
namespace {

using Rec = TopicRecord;

class SourceReconcile : public SourceTest {
 protected:
  void SetUp() override {
    SourceTest::SetUp();
    props_["snow.table.inc.deletes"] = "reconcile";
    props_["snow.table.inc.reconcile.interval.ms"] = "1000";
    props_["snow.table.inc.reconcile.batch.size"] = "100";
    props_["snow.source.poll.interval.ms"] = "100";
  }

  // Every record of the topic in partition then offset order.
  std::vector<Rec> ReadAll() { return ReadWithTombstones(60s); }

  boost::json::object Reconciliation() {
    auto t = Table();
    const boost::json::value* d = t.if_contains("deletions");
    if (d == nullptr || !d->is_object()) return {};
    const boost::json::value* r = d->as_object().if_contains("reconciliation");
    return r != nullptr && r->is_object() ? r->as_object() : boost::json::object{};
  }
  int64_t Sweeps() {
    auto r = Reconciliation();
    return r.contains("sweeps") ? r.at("sweeps").to_number<int64_t>() : -1;
  }
  // Makes the next Start() a replica of `group` with state and socket of its own.
  void BecomeReplica(const std::string& group, const std::string& name) {
    props_["source.group.id"] = group;
    props_["source.group.replica.id"] = name;
    props_["source.group.snapshot.interval.ms"] = "300";
    props_["kafka.session.timeout.ms"] = "6000";
    props_["kafka.heartbeat.interval.ms"] = "1000";
    props_["state.dir"] = dir_.File(name + "/state");
    props_["socket.path"] = dir_.File(name + "/snowcar.sock");
  }
  boost::json::object Ownership() {
    auto r = api::Client().Get(props_.at("socket.path"), "/v1/source/ownership");
    if (!r.ok() || r->status != 200) return {};
    boost::system::error_code ec;
    auto v = boost::json::parse(r->body, ec);
    return ec || !v.is_object() ? boost::json::object{} : v.as_object();
  }
  int64_t IdSetCopies() {
    auto o = Ownership();
    const boost::json::value* c = o.if_contains("idset_copies");
    return c == nullptr ? -1 : c->at("published").to_number<int64_t>();
  }
  // The id set outcome of the table's restore on this replica ("" before one).
  std::string IdSetRestore(uint64_t* ids = nullptr) {
    auto o = Ownership();
    const boost::json::value* restores = o.if_contains("restores");
    if (restores == nullptr || !restores->is_array()) return "";
    for (const auto& r : restores->as_array()) {
      const boost::json::value* idset = r.as_object().if_contains("idset");
      if (idset == nullptr) continue;
      if (ids != nullptr) *ids = idset->at("ids").to_number<uint64_t>();
      return std::string(idset->at("outcome").as_string());
    }
    return "";
  }
  // Replica a owns `inc` alone, takes its first sweep and copies the id set to the
  // changelog; the rows `cleaned` are then deleted the Table Cleaner's way (no audit).
  void FirstOwnerSweepsThenRowsGo(const std::string& group, const std::vector<std::string>& gone) {
    ASSERT_TRUE(broker().CreateTopic(group + ".tables", 1).ok());
    ASSERT_TRUE(broker().CreateTopic(group + ".state", 1).ok());
    BecomeReplica(group, "r-a");
    // One sweep only: the deletions below must be left for the next owner to find.
    props_["snow.table.inc.reconcile.interval.ms"] = "3600000";
    Start();
    ASSERT_TRUE(WaitSweeps(1)) << "no first sweep\n" << child_->Stderr();
    ASSERT_TRUE(testsupport::WaitFor([&] { return IdSetCopies() >= 1; }, 60s, 50ms))
        << "the id set was not copied to the changelog\n"
        << child_->Stderr();
    for (const std::string& id : gone) {
      ASSERT_TRUE(emu_->store().CleanerDelete("incident", id).ok());
    }
  }
  // The sweep state in the latest snapshot of `inc` on the group's changelog ({} if none).
  boost::json::object PublishedSweep(const std::string& group) {
    testsupport::ChildOptions opts;
    opts.args = {"-b",        bootstrap(), "-C", "-t", group + ".state", "-o",
                 "beginning", "-e",        "-q", "-f", "%k\t%s\n"};
    auto r = testsupport::RunToCompletion("kcat", opts, 30s);
    if (!r.ok()) return {};
    std::string latest;
    std::istringstream lines(r->out);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("inc\t")) latest = line.substr(4);
    }
    boost::system::error_code ec;
    auto snapshot = boost::json::parse(latest, ec);
    if (ec || !snapshot.is_object()) return {};
    const boost::json::value* sweep = snapshot.as_object().if_contains("sweep");
    if (sweep == nullptr || !sweep->is_string()) return {};
    auto state = boost::json::parse(sweep->as_string(), ec);
    return ec || !state.is_object() ? boost::json::object{} : state.as_object();
  }
  // Replica b takes the table over and sweeps; the DELETEs it found, by key.
  std::map<std::string, int> NextOwnerSweeps(const std::string& group, size_t expected) {
    BecomeReplica(group, "r-b");
    props_["snow.table.inc.reconcile.interval.ms"] = "1000";
    Start();
    EXPECT_TRUE(WaitSweeps(1)) << "the next owner never swept\n" << child_->Stderr();
    std::map<std::string, int> deletes;
    EXPECT_TRUE(testsupport::WaitFor(
        [&] {
          deletes.clear();
          for (const Rec& r : ReadAll()) {
            if (r.IsDelete()) ++deletes[r.key];
          }
          return deletes.size() >= expected;
        },
        60s, 200ms))
        << "the next owner did not find the deletions\n"
        << child_->Stderr();
    return deletes;
  }

  // Waits until `n` sweeps finished.
  bool WaitSweeps(int64_t n, std::chrono::seconds deadline = 120s) {
    return testsupport::WaitFor([&] { return Sweeps() >= n; }, deadline, 100ms);
  }
};

TEST_F(SourceReconcile, CleanerDeletionsAndAnUndeleteAreFoundWithinOneSweep) {
  props_["snow.table.inc.reconcile.interval.ms"] = "2000";
  ASSERT_TRUE(broker().CreateTopic(topic_, 2).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 250; ++i) seconds.push_back(NowS() - 900 + i);
  const std::vector<std::string> ids = LoadRows(seconds);
  Start();
  ASSERT_TRUE(WaitSweeps(1)) << "no first sweep";

  // Deleted by the Table Cleaner: nothing in sys_audit. One more deleted the audited way
  // (this table does not read the audit trail: reconciliation must find it too).
  const std::vector<std::string> cleaned = {ids[3], ids[117], ids[249]};
  for (const std::string& id : cleaned) {
    ASSERT_TRUE(emu_->store().CleanerDelete("incident", id).ok());
  }
  const std::string undone = ids[42];
  ASSERT_TRUE(emu_->store().Delete("incident", undone).ok());
  const int64_t sweeps_at_deletion = Sweeps();

  // The sweep count when the socket first shows the four DELETEs acknowledged: the sweep
  // under way when the rows went finished at most once more before them, the next one found
  // them (a sweep starts every 2 s; the socket is read every 50 ms).
  int64_t sweeps_when_found = -1;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto t = Table();
        const boost::json::value* d = t.if_contains("deletions");
        if (d == nullptr || !d->is_object()) return false;
        if (d->at("emitted_by_reconciliation").to_number<int64_t>() < 4) return false;
        sweeps_when_found = d->at("reconciliation").at("sweeps").to_number<int64_t>();
        return true;
      },
      60s, 50ms))
      << "the deletions were not found";
  EXPECT_LE(sweeps_when_found, sweeps_at_deletion + 2);

  auto deletes_of = [](const std::vector<Rec>& records) {
    std::map<std::string, int> out;
    for (const Rec& r : records) {
      if (r.IsDelete()) ++out[r.key];
    }
    return out;
  };
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto d = deletes_of(ReadAll());
        for (const std::string& id : cleaned) {
          if (d.count(id) == 0) return false;
        }
        return d.count(undone) == 1;
      },
      60s, 200ms))
      << "the deletions are not on the topic";

  // The undelete brings the row back with its old sys_updated_on, behind the row cursor.
  ASSERT_TRUE(emu_->store().Undelete("incident", undone).ok());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto records = ReadAll();
        for (auto it = records.rbegin(); it != records.rend(); ++it) {
          if (it->key == undone) return it->IsUpsert();
        }
        return false;
      },
      60s, 200ms))
      << "the undeleted row was not emitted again";

  const std::vector<Rec> records = ReadAll();
  std::set<std::string> gone(cleaned.begin(), cleaned.end());
  gone.insert(undone);
  for (const Rec& r : records) {
    if (!r.IsDelete()) continue;
    EXPECT_EQ(gone.count(r.key), 1u) << "a DELETE for a live row: " << r.key;
    EXPECT_TRUE(r.Has("snow.source.delete.found.by=reconciliation")) << r.headers;
    auto v = boost::json::parse(*r.value).as_object();
    EXPECT_EQ(v.at("found_by").as_string(), "reconciliation");
    EXPECT_EQ(v.at("sys_id").as_string(), r.key);
  }
  for (const auto& [id, n] : deletes_of(records)) EXPECT_EQ(n, 1) << id;

  auto t = Table();
  EXPECT_EQ(t.at("deletions").at("emitted_by_reconciliation").to_number<int64_t>(), 4);
  EXPECT_EQ(t.at("deletions").at("mode").as_string(), "reconcile");
  auto metrics = Get("/metrics").body;
  EXPECT_THAT(metrics, ::testing::HasSubstr("snowcar_source_deletes_emitted_total{table=\"inc\","
                                            "found_by=\"reconciliation\"} 4"));
  EXPECT_THAT(metrics, ::testing::HasSubstr("snowcar_source_reconcile_last_rows_compared{table="
                                            "\"inc\"}"));
  StopGracefully();
}

TEST_F(SourceReconcile, RowsUpdatedDuringTheSweepAreNeverDeletions) {
  props_["snow.source.batch.size"] = "5000";
  props_["snow.table.inc.reconcile.batch.size"] = "2000";
  ASSERT_TRUE(broker().CreateTopic(topic_, 4).ok());
  constexpr int kRows = 100000;
  std::vector<int64_t> seconds;
  for (int i = 0; i < kRows; ++i) seconds.push_back(NowS() - 5000 + i / 25);
  const std::vector<std::string> ids = LoadRows(seconds);
  Start();
  ASSERT_TRUE(WaitSweeps(1, 240s)) << "no first sweep";
  // Two more sweeps, with rows updated (and created) the whole time.
  const int64_t target = Sweeps() + 2;
  int updates = 0;
  while (Sweeps() < target) {
    for (int k = 0; k < 50; ++k) {
      const std::string& id = ids[(updates * 7919) % kRows];
      ASSERT_TRUE(emu_->store()
                      .Update("incident", id, {{"short_description", std::to_string(updates)}})
                      .ok());
      ++updates;
    }
    ASSERT_TRUE(emu_->store().Insert("incident", {{"short_description", "new"}}).ok());
    // Pacing the workload across the sweep, not synchronisation.
    std::this_thread::sleep_for(20ms);
    ASSERT_LT(updates, 2000000) << "the sweeps did not finish";
  }
  const auto r = Reconciliation();
  EXPECT_EQ(r.at("last_sweep").at("deleted").to_number<int64_t>(), 0);
  EXPECT_GE(r.at("last_sweep").at("rows_compared").to_number<int64_t>(), kRows);
  size_t deletes = 0;
  for (const Rec& rec : ReadAll()) deletes += rec.IsDelete() ? 1 : 0;
  EXPECT_EQ(deletes, 0u) << "false deletions";
  std::printf(
      "[ figures  ] reconcile: rows=%d updates during sweeps=%d false deletions=%zu last sweep "
      "%lld ms, requests over all sweeps=%lld\n",
      kRows, updates, deletes,
      static_cast<long long>(r.at("last_sweep").at("duration_ms").to_number<int64_t>()),
      static_cast<long long>(r.at("requests").to_number<int64_t>()));
  StopGracefully();
}

TEST_F(SourceReconcile, ASweepKilledHalfWayResumesWhereItStood) {
  props_["snow.table.inc.reconcile.interval.ms"] = "600000";  // one sweep, then a long wait
  props_["snow.source.batch.size"] = "1000";  // a backfill of a few pages, even when slow
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 6000; ++i) seconds.push_back(NowS() - 8000 + i);
  const std::vector<std::string> ids = LoadRows(seconds);
  // Every request to the table takes 200 ms from the start, so the kill lands inside the
  // sweep: 60 pages, the position stored after the first batch of 16 (3.2 s), then 8.8 s
  // for this test to see it. Slowed only once the backfill was done, a sweep could start and
  // finish at full speed before the test slowed it (CI saw that: no sweep under way).
  emulator::LatencyKnob slow;
  slow.fixed_ms = 200;
  slow.scope.path_prefix = "/api/now/table/incident";
  emu_->faults().SetLatency(slow);
  Start();
  std::string position;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto r = Reconciliation();
        const boost::json::value* c = r.if_contains("current_sweep");
        if (c == nullptr || !c->is_object()) return false;
        position = std::string(c->at("after_sys_id").as_string());
        return c->at("rows_compared").to_number<int64_t>() >= 500;
      },
      120s, 50ms))
      << "the sweep did not get under way";
  // What a failure needs to be read: the killed process's log (its last sweep pages), the
  // restarted one's (source.reconcile_resumed says where it took up), the requests since.
  const std::string killed_log = child_->Stderr();
  Kill9();
  emu_->journal().Clear();
  Start();
  auto explain = [&] {
    std::string out = "\nposition read before the kill: " + position + "\nrequests since:\n";
    int n = 0;
    for (const auto& e : emu_->journal().All()) {
      if (++n > 40) break;
      out += "  " + e.method + " " + e.target + " -> " + std::to_string(e.status) + "\n";
    }
    auto tail = [](const std::string& log) {
      return log.size() > 6000 ? log.substr(log.size() - 6000) : log;
    };
    out += "killed sidecar's log (tail):\n" + tail(killed_log);
    if (child_ != nullptr) out += "\nrestarted sidecar's log (tail):\n" + tail(child_->Stderr());
    return out;
  };
  // The first sweep request after the restart starts after the stored position.
  std::string first;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        for (const auto& e : emu_->journal().All()) {
          if (e.target.find("sysparm_fields=sys_id&") != std::string::npos ||
              e.target.ends_with("sysparm_fields=sys_id")) {
            if (e.target.find("ORDERBYsys_id") != std::string::npos) {
              first = e.target;
              return true;
            }
          }
        }
        return false;
      },
      60s, 50ms))
      << explain();
  const size_t after = first.find("sys_id%3E");
  ASSERT_NE(after, std::string::npos) << "the sweep started over: " << first << explain();
  EXPECT_GE(first.substr(after + 9, 32), position) << first << explain();
  emu_->faults().SetLatency(emulator::LatencyKnob{});
  // Read once a finished sweep shows (a single read could meet a socket too busy to answer).
  boost::json::object r;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        r = Reconciliation();
        const boost::json::value* last = r.if_contains("last_sweep");
        return last != nullptr && last->is_object();
      },
      120s, 100ms))
      << "the resumed sweep did not finish" << explain();
  EXPECT_EQ(r.at("last_sweep").at("deleted").to_number<int64_t>(), 0) << explain();
  StopGracefully();
}

// The pollers write the ids Kafka acknowledged into the id set every EmittedIds::kFlushAt, not
// only when a sweep starts: a backfill killed before its first sweep keeps what it had
// flushed (a million-row table would otherwise hold every id in memory until the sweep).
TEST_F(SourceReconcile, AcknowledgedIdsReachTheIdSetBeforeAnySweep) {
  props_["snow.table.inc.reconcile.interval.ms"] = "600000";
  props_["snow.source.batch.size"] = "1000";
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 30000; ++i) seconds.push_back(NowS() - 40000 + i);
  LoadRows(seconds);
  // 30 pages at 200 ms each: the kill below, at 11 000 rows acknowledged, leaves 19 pages
  // (3.8 s) of backfill before the first sweep could start and flush on its own.
  emulator::LatencyKnob slow;
  slow.fixed_ms = 200;
  slow.scope.path_prefix = "/api/now/table/incident";
  emu_->faults().SetLatency(slow);
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("rows_emitted") >= 11000; }, 120s, 50ms))
      << child_->Stderr();
  const boost::json::object before_kill = Reconciliation();
  Kill9();
  const boost::json::value* sweep = before_kill.if_contains("current_sweep");
  const boost::json::value* sweeps = before_kill.if_contains("sweeps");
  EXPECT_TRUE(sweep != nullptr && sweep->is_null() && sweeps != nullptr &&
              sweeps->to_number<int64_t>() == 0)
      << "a sweep had begun (it flushes the ids itself): " << boost::json::serialize(before_kill);

  auto store = state::StateStore::Open({.dir = props_.at("state.dir")});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto count = (*store)->IdSetCount(UrlHost(emu_->base_url()), "inc");
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  // At least the first flush; never more than was acknowledged.
  EXPECT_GE(*count, 10000u);
  EXPECT_LE(*count, 30000u);
}

// A sweep compares up to 16 pages before it confirms and produces their differences, so the
// wait for the row stream's next acknowledged poll (the gate that keeps a DELETE behind its
// row's last UPSERT) is paid once per batch. Ten pages, each with a deletion, are one batch:
// one wait, where waiting page by page would be ten.
TEST_F(SourceReconcile, ASweepWaitsAtTheGateOncePerBatchNotOncePerPage) {
  props_["snow.table.inc.reconcile.interval.ms"] = "3000";
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 1000; ++i) seconds.push_back(NowS() - 2000 + i);
  std::vector<std::string> ids = LoadRows(seconds);
  std::sort(ids.begin(), ids.end());  // the sweep's order: page p holds ids[100p .. 100p+99]
  Start();
  ASSERT_TRUE(WaitSweeps(1)) << "no first sweep";
  const int64_t waits_before = Reconciliation().at("gate_waits").to_number<int64_t>();
  std::vector<std::string> gone;
  for (int page = 0; page < 10; ++page) gone.push_back(ids[page * 100 + 50]);
  for (const std::string& id : gone) {
    ASSERT_TRUE(emu_->store().CleanerDelete("incident", id).ok());
  }
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto t = Table();
        const boost::json::value* d = t.if_contains("deletions");
        return d != nullptr && d->is_object() &&
               d->at("emitted_by_reconciliation").to_number<int64_t>() >= 10;
      },
      60s, 50ms))
      << "the deletions were not found";
  const int64_t waits = Reconciliation().at("gate_waits").to_number<int64_t>() - waits_before;
  // One batch, or two when a sweep already under way saw the later pages' deletions and the
  // next one the earlier pages'.
  EXPECT_GE(waits, 1);
  EXPECT_LE(waits, 2);
  StopGracefully();
}

// Scale-out: the id set moves with the table (docs/scale-out.md, "What moves with a table").
// The next owner restores the first owner's copy, so rows deleted while the table moved are
// found by its first sweep, and no row is taken for one never emitted. Without the copy the
// next owner's sweep would either take a baseline (and miss the deletions) or, keeping the
// "baseline taken" of the snapshot against an empty set, emit every row again.
TEST_F(SourceReconcile, TheIdSetMovesWithTheTableOnACleanHandoff) {
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 250; ++i) seconds.push_back(NowS() - 900 + i);
  const std::vector<std::string> ids = LoadRows(seconds);
  const std::string group = testsupport::UniqueName("recgrp");
  const std::vector<std::string> gone = {ids[5], ids[128], ids[240]};
  FirstOwnerSweepsThenRowsGo(group, gone);
  StopGracefully();  // the release copies the set once more, then names it in the snapshot
  EXPECT_EQ(last_stderr_.find("source.reconcile_differences"), std::string::npos)
      << "the first owner swept the deletions itself";

  const std::map<std::string, int> deletes = NextOwnerSweeps(group, gone.size());
  uint64_t restored = 0;
  EXPECT_EQ(IdSetRestore(&restored), "restored") << child_->Stderr();
  EXPECT_EQ(restored, 250u);
  EXPECT_EQ(deletes.size(), gone.size());
  for (const std::string& id : gone) EXPECT_EQ(deletes.count(id), 1u) << id;
  const boost::json::object r = Reconciliation();
  EXPECT_EQ(r.at("rows_emitted").to_number<int64_t>(), 0)
      << "rows the first owner emitted were taken for never emitted";
  EXPECT_TRUE(r.at("baseline_taken").as_bool());
  StopGracefully();
}

// The owner is killed: the copy of its last finished sweep is what moves.
TEST_F(SourceReconcile, AfterAKillTheCopyOfTheLastSweepMoves) {
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 250; ++i) seconds.push_back(NowS() - 900 + i);
  const std::vector<std::string> ids = LoadRows(seconds);
  const std::string group = testsupport::UniqueName("recgrp");
  const std::vector<std::string> gone = {ids[0], ids[77], ids[249]};
  FirstOwnerSweepsThenRowsGo(group, gone);
  Kill9();

  const std::map<std::string, int> deletes = NextOwnerSweeps(group, gone.size());
  EXPECT_EQ(IdSetRestore(), "restored") << child_->Stderr();
  EXPECT_EQ(deletes.size(), gone.size());
  for (const std::string& id : gone) EXPECT_EQ(deletes.count(id), 1u) << id;
  EXPECT_EQ(Reconciliation().at("rows_emitted").to_number<int64_t>(), 0);

  // The same replica killed and back: it restored that copy itself, so it keeps its own set
  // (which also holds what it noted since) instead of reading the copy again.
  Kill9();
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return !IdSetRestore().empty(); }, 60s, 100ms))
      << "no restore after the restart";
  EXPECT_EQ(IdSetRestore(), "kept");
  int64_t restored_sweeps = -1;
  ASSERT_TRUE(testsupport::WaitFor([&] { return (restored_sweeps = Sweeps()) >= 0; }, 60s, 50ms));
  ASSERT_TRUE(WaitSweeps(restored_sweeps + 1)) << "no sweep after the restart";
  EXPECT_EQ(Reconciliation().at("rows_emitted").to_number<int64_t>(), 0);
  StopGracefully();
}

// The owner dies in the middle of its first sweep: there is no copy of the id set yet, and the
// snapshot says "half-way, no baseline". The next owner's set is empty, so it starts the sweep
// over as a baseline. Resuming half-way would leave the ids before the position out of its
// set for good, and its next sweep would emit all those rows again.
TEST_F(SourceReconcile, WithNoCopyTheNextOwnerStartsTheSweepOverAsABaseline) {
  props_["snow.source.batch.size"] = "1000";
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 6000; ++i) seconds.push_back(NowS() - 8000 + i);
  LoadRows(seconds);
  const std::string group = testsupport::UniqueName("recgrp");
  ASSERT_TRUE(broker().CreateTopic(group + ".tables", 1).ok());
  ASSERT_TRUE(broker().CreateTopic(group + ".state", 1).ok());
  // 60 sweep pages at 200 ms each: 12 s for the first sweep, its position stored every 16.
  emulator::LatencyKnob slow;
  slow.fixed_ms = 200;
  slow.scope.path_prefix = "/api/now/table/incident";
  emu_->faults().SetLatency(slow);
  BecomeReplica(group, "r-a");
  props_["snow.table.inc.reconcile.interval.ms"] = "1000";
  Start();
  boost::json::object published;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        published = PublishedSweep(group);
        const boost::json::value* in_sweep = published.if_contains("in_sweep");
        const boost::json::value* after = published.if_contains("after");
        return in_sweep != nullptr && in_sweep->as_bool() && after != nullptr &&
               !after->as_string().empty();
      },
      120s, 100ms))
      << "no snapshot of a sweep under way\n"
      << child_->Stderr();
  EXPECT_FALSE(published.at("seeded").as_bool());
  Kill9();

  BecomeReplica(group, "r-b");
  emu_->faults().SetLatency(emulator::LatencyKnob{});
  Start();
  ASSERT_TRUE(WaitSweeps(2)) << "the next owner did not sweep twice\n" << child_->Stderr();
  EXPECT_EQ(IdSetRestore(), "baseline");
  const boost::json::object r = Reconciliation();
  EXPECT_EQ(r.at("rows_emitted").to_number<int64_t>(), 0)
      << "rows before the dead owner's position were taken for never emitted";
  EXPECT_EQ(r.at("last_sweep").at("differences").to_number<int64_t>(), 0);
  for (const Rec& rec : ReadAll()) EXPECT_FALSE(rec.IsDelete()) << rec.key;
  StopGracefully();
}

}  // namespace
}  // namespace snowcar::source::it
