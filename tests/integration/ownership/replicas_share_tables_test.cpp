// SPDX-License-Identifier: Apache-2.0
// Source scale-out with real processes: three `snowcar run` replicas with one source.group.id
// share ten emulator tables while the instance keeps writing. Each table is polled by exactly
// one replica at a time, every final row version reaches Kafka, and the tables move when a
// replica stops (SIGTERM), dies (kill -9) or joins, within the group's session timeout.
//
// Which replica polled a table when comes from the replicas' own log events
// (source.group.table_acquired / table_released, wall-clock `at_ms`): the emulator's journal
// records the user, not the client, and every replica uses the same credentials.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <set>
#include <sstream>

#include "integration/source/source_harness.h"
#include "snowcar/common/time.h"
#include "support/scaleout_checks.h"

namespace snowcar::source::it {
namespace {

constexpr int kTables = 10;
constexpr int kBatch = 20;
constexpr int kSnapshotIntervalMs = 500;
constexpr auto kSessionTimeout = 6s;

struct Replica {
  std::string name;
  std::string socket;
  std::unique_ptr<testsupport::ChildProcess> child;
  std::string stderr_text;    // kept once the process is gone
  int64_t killed_at_ms = -1;  // kill -9: the end of every interval still open
};

class ReplicasShareTables : public SourceTest {
 protected:
  void SetUp() override {
    SourceTest::SetUp();
    group_ = testsupport::UniqueName("srcgrp");
    ASSERT_TRUE(broker().CreateTopic(group_ + ".tables", kTables).ok());
    ASSERT_TRUE(broker().CreateTopic(group_ + ".state", kTables).ok());
    std::string aliases;
    const int64_t now = SystemClock::Instance().NowSeconds();
    for (int t = 0; t < kTables; ++t) {
      const std::string alias = "t" + std::to_string(t);
      const std::string table = "u_scale_" + std::to_string(t);
      ASSERT_TRUE(emu_->store().CreateTable(table).ok());
      std::vector<emulator::Fields> rows;
      for (int i = 0; i < 30; ++i) {
        char id[33];
        std::snprintf(id, sizeof id, "%08x%024x", static_cast<unsigned>(t + 1) * 2654435761u,
                      static_cast<unsigned>(i));
        rows.push_back({{"sys_id", id},
                        {"sys_updated_on", FormatSnowTimestamp(now - 600 + i)},
                        {"sys_created_on", FormatSnowTimestamp(now - 600 + i)},
                        {"short_description", "row " + std::to_string(i)}});
      }
      ASSERT_TRUE(emu_->store().Load(table, rows).ok());
      const std::string topic = testsupport::UniqueName("scale-" + alias);
      ASSERT_TRUE(broker().CreateTopic(topic, 1).ok());
      aliases += (aliases.empty() ? "" : ",") + alias;
      props_["snow.table." + alias + ".name"] = table;
      props_["snow.table." + alias + ".topic"] = topic;
      tables_[alias] = {table, topic};
    }
    props_.erase("snow.table.inc.name");
    props_.erase("snow.table.inc.topic");
    props_["snow.tables"] = aliases;
    props_["snow.source.batch.size"] = std::to_string(kBatch);
    props_["snow.source.poll.interval.ms"] = "200";
    props_["snow.source.startup.probe"] = "false";
    props_["source.group.id"] = group_;
    props_["source.group.snapshot.interval.ms"] = std::to_string(kSnapshotIntervalMs);
    props_["kafka.session.timeout.ms"] =
        std::to_string(std::chrono::milliseconds(kSessionTimeout).count());
    props_["kafka.heartbeat.interval.ms"] = "1000";
  }

  void TearDown() override {
    replicas_.clear();
    SourceTest::TearDown();
  }

  Replica& AddReplica(const std::string& name) {
    auto r = std::make_unique<Replica>();
    r->name = name;
    r->socket = dir_.File(name + "/snowcar.sock");
    props_["state.dir"] = dir_.File(name + "/state");
    props_["socket.path"] = r->socket;
    props_["source.group.replica.id"] = name;
    r->child = Spawn(/*wait_ready=*/false);
    replicas_.push_back(std::move(r));
    return *replicas_.back();
  }

  // The tables a running replica says it owns; nullopt when its socket does not answer.
  std::optional<std::set<std::string>> Owned(const Replica& r) {
    auto got = api::Client().Get(r.socket, "/v1/source/ownership");
    if (!got.ok() || got->status != 200) return std::nullopt;
    return testsupport::OwnedTables(got->body);
  }
  boost::json::object Ownership(const Replica& r) {
    auto got = api::Client().Get(r.socket, "/v1/source/ownership");
    if (!got.ok() || got->status != 200) return {};
    boost::system::error_code ec;
    auto v = boost::json::parse(got->body, ec);
    return ec || !v.is_object() ? boost::json::object{} : v.as_object();
  }

  // True when the running replicas own every table exactly once between them, and each
  // owns at least `min_each`.
  bool Partitioned(const std::vector<Replica*>& running, size_t min_each) {
    std::vector<std::set<std::string>> owned;
    for (Replica* r : running) {
      auto tables = Owned(*r);
      if (!tables) return false;
      owned.push_back(std::move(*tables));
    }
    return testsupport::TablesPartitioned(owned, kTables, min_each);
  }

  // Every hold of every table, from the replicas' log events.
  testsupport::TableHolds Holds() {
    testsupport::TableHolds out;
    for (auto& r : replicas_) {
      testsupport::CollectTableHolds(r->name, r->child ? r->child->Stderr() : r->stderr_text,
                                     r->killed_at_ms >= 0 ? r->killed_at_ms : INT64_MAX, out);
    }
    return out;
  }

  void Terminate(Replica& r) {
    ASSERT_TRUE(r.child->Signal(SIGTERM).ok());
    auto status = r.child->Wait(40s);
    ASSERT_TRUE(status.ok());
    EXPECT_TRUE(status->ok()) << status->ToString();
    r.child->WaitStreamsDrained(5s);
    r.stderr_text = r.child->Stderr();
    r.child.reset();
  }
  void Kill(Replica& r) {
    r.killed_at_ms = SystemClock::Instance().NowMillis();
    ASSERT_TRUE(r.child->Signal(SIGKILL).ok());
    ASSERT_TRUE(r.child->Wait(10s).ok());
    r.child->WaitStreamsDrained(5s);
    r.stderr_text = r.child->Stderr();
    r.child.reset();
  }

  // True when every table a running replica owns has fetched at least one page since it
  // was acquired (the counters restart with each new owner).
  bool AllPolled(const std::vector<Replica*>& running) {
    for (Replica* r : running) {
      auto got = api::Client().Get(r->socket, "/v1/source/tables");
      if (!got.ok() || got->status != 200) return false;
      boost::system::error_code ec;
      auto v = boost::json::parse(got->body, ec);
      if (ec || !v.is_object()) return false;
      for (const auto& t : v.as_object().at("tables").as_array()) {
        if (t.as_object().at("pages_fetched").as_int64() < 1) return false;
      }
    }
    return true;
  }
  size_t DuplicatesNow() {
    size_t dups = 0;
    for (const auto& [alias, tt] : tables_) dups += Duplicates(ReadTopic(tt.second));
    return dups;
  }

  // (sys_id, sys_mod_count) of every current row of `table`.
  std::set<std::pair<std::string, std::string>> Final(const std::string& table) {
    return FinalVersions(table);
  }

  std::string group_;
  std::map<std::string, std::pair<std::string, std::string>> tables_;  // alias -> table, topic
  std::vector<std::unique_ptr<Replica>> replicas_;
};

TEST_F(ReplicasShareTables, TablesMoveWithTheirStateAndNoRowIsLost) {
  emulator::RowGeneratorOptions generator;
  for (const auto& [alias, tt] : tables_) generator.tables.push_back(tt.first);
  generator.rows_per_second = 40;
  generator.update_share = 0.5;
  ASSERT_TRUE(emu_->row_generator().Start(generator).ok());

  Replica& a = AddReplica("r-a");
  Replica& b = AddReplica("r-b");
  Replica& c = AddReplica("r-c");
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return Partitioned({&a, &b, &c}, 3);
      },
      60s, 200ms))
      << "three replicas never split the ten tables";

  // SIGTERM: the leaver's tables go to the others after a clean revoke.
  auto t0 = std::chrono::steady_clock::now();
  Terminate(a);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Partitioned({&b, &c}, 1); }, 40s, 100ms));
  const auto graceful = std::chrono::steady_clock::now() - t0;
  // A clean handoff repeats nothing: the new owners restored the final snapshots.
  ASSERT_TRUE(testsupport::WaitFor([&] { return AllPolled({&b, &c}); }, 30s, 100ms));
  const size_t dups_graceful = DuplicatesNow();
  EXPECT_EQ(dups_graceful, 0u);

  // kill -9: the group notices at the session timeout; the survivor restores and polls.
  const auto b_owned = Owned(b).value_or(std::set<std::string>{});
  t0 = std::chrono::steady_clock::now();
  Kill(b);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Partitioned({&c}, kTables); }, 40s, 100ms));
  const auto after_kill = std::chrono::steady_clock::now() - t0;
  // Session timeout, the mock's ~3 s join, and slack for a loaded 2-core machine.
  EXPECT_LE(after_kill, kSessionTimeout + 15s);

  // A fresh replica (empty state dir) joins: it takes some tables over and restores their
  // state from the changelog rather than from its own (empty) store.
  Replica& d = AddReplica("r-d");
  ASSERT_TRUE(testsupport::WaitFor([&] { return Partitioned({&c, &d}, 3); }, 60s, 200ms));
  auto restores = Ownership(d)["restores"].as_array();
  size_t applied = 0;
  for (const auto& r : restores) applied += r.as_object().at("outcome").as_string() == "applied";
  EXPECT_GT(applied, 0u) << boost::json::serialize(restores);
  double restore_max = 0;
  for (const auto& r : restores) {
    restore_max = std::max(restore_max, r.as_object().at("seconds").to_number<double>());
  }
  std::printf("[ figures  ] fresh replica restored %zu tables, slowest restore %.3f s\n",
              restores.size(), restore_max);

  emu_->row_generator().Stop();
  // Every final version of every table reaches its topic.
  std::map<std::string, std::vector<Consumed>> records;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        for (const auto& [alias, tt] : tables_) {
          auto got = ReadTopic(tt.second);
          auto have = Versions(got);
          for (const auto& v : Final(tt.first)) {
            if (have.count(v) == 0) return false;
          }
          records[alias] = std::move(got);
        }
        return true;
      },
      90s, 500ms))
      << "some final row version never reached Kafka";

  size_t total = 0;
  size_t dups = 0;
  for (const auto& [alias, got] : records) {
    total += got.size();
    dups += Duplicates(got);
  }
  // The documented bound (docs/semantics.md): a clean handoff re-emits nothing beyond the
  // overlap re-read dedup suppresses; a kill -9 of the owner re-emits, per table it owned, at
  // most the rows committed after its last snapshot (one snapshot interval of the row
  // generator) plus one page.
  const double generator_rows_per_interval =
      generator.rows_per_second * kSnapshotIntervalMs / 1000.0;
  const size_t bound = testsupport::SourceDuplicateBound(
      b_owned.size(), kBatch, generator.rows_per_second, kSnapshotIntervalMs);
  std::printf(
      "[ figures  ] replicas=3 tables=%d records=%zu duplicates=%zu (bound %zu: %zu tables "
      "of the killed owner x page %d + %.0f rows per snapshot interval); handoff after "
      "SIGTERM %.1f s, after kill -9 %.1f s (session timeout %lld s); duplicates before the "
      "kill %zu\n",
      kTables, total, dups, bound, b_owned.size(), kBatch, generator_rows_per_interval,
      std::chrono::duration<double>(graceful).count(),
      std::chrono::duration<double>(after_kill).count(),
      static_cast<long long>(kSessionTimeout.count()), dups_graceful);
  EXPECT_LE(dups, bound);

  // No two replicas ever held one table at the same time.
  for (auto& r : replicas_) {
    if (r->child) r->stderr_text = r->child->Stderr();
  }
  // What went wrong, if anything, in the replicas' words: their warnings and errors.
  for (auto& r : replicas_) {
    std::string list;
    for (const auto& [event, n] : testsupport::WarningEvents(r->stderr_text)) {
      list += " " + event + "=" + std::to_string(n);
    }
    std::printf("[ figures  ] %s warnings:%s\n", r->name.c_str(),
                list.empty() ? " none" : list.c_str());
  }
  const auto holds = Holds();
  EXPECT_EQ(holds.size(), static_cast<size_t>(kTables));
  for (const auto& overlap : testsupport::OverlappingHolds(holds)) ADD_FAILURE() << overlap;
  Terminate(c);
  Terminate(d);
}

}  // namespace
}  // namespace snowcar::source::it

namespace snowcar::source::it {
namespace {

TEST_F(ReplicasShareTables, ACoordinationTopicWithTooFewPartitionsIsRefusedAtStart) {
  const std::string group = testsupport::UniqueName("srcgrp-small");
  ASSERT_TRUE(broker().CreateTopic(group + ".tables", 3).ok());
  ASSERT_TRUE(broker().CreateTopic(group + ".state", kTables).ok());
  props_["source.group.id"] = group;
  props_["state.dir"] = dir_.File("small/state");
  props_["socket.path"] = dir_.File("small/snowcar.sock");
  testsupport::ChildOptions opts;
  opts.args = {"run", "--config", WriteProps()};
  opts.capture_stderr = true;
  auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, opts);
  ASSERT_TRUE(child.ok());
  auto exit = (*child)->Wait(60s);
  ASSERT_TRUE(exit.ok()) << "the sidecar kept running";
  EXPECT_FALSE(exit->ok());
  (*child)->WaitStreamsDrained(5s);
  const std::string err = (*child)->Stderr();
  EXPECT_NE(err.find(group + ".tables' has 3 partitions but 10"), std::string::npos) << err;
}

}  // namespace
}  // namespace snowcar::source::it
