// SPDX-License-Identifier: Apache-2.0
// Deletes from the audit trail (snow.table.<alias>.deletes=audit) with the real sidecar: rows
// are created, updated, deleted and undeleted while it runs, with graceful restarts and
// kill -9 in between. Per key the topic must end with what the instance holds (the DELETE and
// its tombstone for a deleted row, the row for a live one), never carry an UPSERT after a
// DELETE unless the row was undeleted in between, and lose no deletion.
#include <gmock/gmock.h>

#include <map>
#include <random>
#include <thread>

#include "source_harness.h"

namespace snowcar::source::it {
namespace {

using Rec = TopicRecord;

class SourceDeletes : public SourceTest {
 protected:
  // Every record of the topic, tombstones included, in partition then offset order.
  std::vector<Rec> ReadAll() { return ReadWithTombstones(30s); }

  static std::map<std::string, std::vector<Rec>> ByKey(const std::vector<Rec>& records) {
    std::map<std::string, std::vector<Rec>> out;
    for (const Rec& r : records) out[r.key].push_back(r);
    return out;
  }

  static std::string ModCount(const Rec& r) {
    auto v = boost::json::parse(*r.value).as_object();
    return std::string(v.at("sys_mod_count").as_string());
  }

  // True when the topic ends, per key, in the instance's state: deleted ids with a DELETE and
  // its tombstone, live rows with their current version.
  // `why` names the first key that does not, for the failure message.
  bool Converged(const std::set<std::string>& deleted, std::string* why) {
    const auto final_rows = FinalVersions();
    std::map<std::string, std::string> live(final_rows.begin(), final_rows.end());
    const auto by_key = ByKey(ReadAll());
    for (const std::string& id : deleted) {
      if (live.count(id) != 0) continue;
      auto it = by_key.find(id);
      const bool ends_deleted = it != by_key.end() && it->second.size() >= 2 &&
                                it->second[it->second.size() - 2].IsDelete() &&
                                !it->second.back().value.has_value();
      if (!ends_deleted) {
        *why = id + " is deleted but its records do not end with a DELETE and its tombstone";
        return false;
      }
    }
    for (const auto& [id, mod] : live) {
      auto it = by_key.find(id);
      if (it == by_key.end() || !it->second.back().IsUpsert()) {
        *why = id + " is live (mod " + mod + ") but its records do not end with an UPSERT" +
               (it != by_key.end() && !it->second.back().value.has_value() ? " (a tombstone)" : "");
        return false;
      }
      if (ModCount(it->second.back()) != mod) {
        *why = id + " is live at mod " + mod + " but its last UPSERT is mod " +
               ModCount(it->second.back());
        return false;
      }
    }
    return true;
  }
};

TEST_F(SourceDeletes, TheTopicEndsWithEachDeletionAndLosesNone) {
  props_["snow.table.inc.deletes"] = "audit";
  props_["snow.source.emit.tombstones"] = "true";
  props_["snow.source.poll.interval.ms"] = "100";
  props_["snow.source.batch.size"] = "10";
  ASSERT_TRUE(broker().CreateTopic(topic_, 4).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 40; ++i) seconds.push_back(NowS() - 600 + i);
  std::vector<std::string> ids = LoadRows(seconds);

  std::mt19937 rng(20261203);
  std::set<std::string> deleted_ever;
  std::set<std::string> recovered;
  std::vector<std::string> deleted_now;
  emulator::WriteOptions alice;
  alice.user = "alice";
  auto live_ids = [&] {
    std::vector<std::string> out;
    for (const auto& [id, mod] : FinalVersions()) out.push_back(id);
    return out;
  };
  constexpr int kRounds = 6;
  for (int round = 0; round < kRounds; ++round) {
    Start(/*wait_ready=*/false);
    ASSERT_NE(child_, nullptr);
    for (int step = 0; step < 8; ++step) {
      auto live = live_ids();
      for (int k = 0; k < 2; ++k) {
        auto w = emu_->store().Insert("incident", {{"short_description", "new"}});
        ASSERT_TRUE(w.ok());
      }
      for (int k = 0; k < 3 && !live.empty(); ++k) {
        const std::string& id = live[rng() % live.size()];
        (void)emu_->store().Update("incident", id,
                                   {{"short_description", "u" + std::to_string(rng())}});
      }
      // Updated, then deleted within the same second: the DELETE must still come last.
      if (live.size() > 5) {
        const std::string id = live[rng() % live.size()];
        ASSERT_TRUE(emu_->store().Update("incident", id, {{"short_description", "last"}}).ok());
        ASSERT_TRUE(emu_->store().Delete("incident", id, alice).ok());
        deleted_ever.insert(id);
        deleted_now.push_back(id);
      }
      // Now and then an undelete: the row comes back with its old sys_updated_on.
      if (step % 3 == 2 && !deleted_now.empty()) {
        const std::string id = deleted_now.front();
        deleted_now.erase(deleted_now.begin());
        ASSERT_TRUE(emu_->store().Undelete("incident", id).ok());
        recovered.insert(id);
      }
      // Pacing the workload across seconds while the sidecar runs, not synchronisation.
      std::this_thread::sleep_for(std::chrono::milliseconds(150 + rng() % 150));
    }
    if (round % 2 == 0) {
      StopGracefully();
    } else {
      Kill9();
    }
  }
  Start();
  std::string why;
  ASSERT_TRUE(testsupport::WaitFor([&] { return Converged(deleted_ever, &why); }, 60s, 250ms))
      << "the topic did not reach the instance's state: " << why
      << (recovered.count(why.substr(0, 32)) != 0 ? " (an undeleted row)" : "");
  const auto records = ReadAll();
  const auto by_key = ByKey(records);
  size_t deletes = 0;
  for (const auto& [id, rs] : by_key) {
    SCOPED_TRACE(id);
    std::set<int> partitions;
    bool after_delete = false;
    for (size_t i = 0; i < rs.size(); ++i) {
      partitions.insert(rs[i].partition);
      if (rs[i].IsDelete()) {
        ++deletes;
        after_delete = true;
        // Its tombstone follows at once (for this key).
        ASSERT_LT(i + 1, rs.size());
        EXPECT_FALSE(rs[i + 1].value.has_value());
        auto v = boost::json::parse(*rs[i].value).as_object();
        EXPECT_EQ(v.at("sys_id").as_string(), id);
        EXPECT_EQ(v.at("table").as_string(), "incident");
        EXPECT_EQ(v.at("deleted_by").as_string(), "alice");
        EXPECT_TRUE(ParseSnowTimestamp(std::string(v.at("deleted_at").as_string())).ok());
      } else if (rs[i].IsUpsert() && after_delete) {
        // Only an undeleted row comes back.
        EXPECT_EQ(recovered.count(id), 1u) << "an UPSERT after the DELETE of a row never undeleted";
      }
    }
    EXPECT_EQ(partitions.size(), 1u);
  }
  for (const std::string& id : deleted_ever) {
    auto it = by_key.find(id);
    ASSERT_NE(it, by_key.end()) << id;
    EXPECT_TRUE(std::any_of(it->second.begin(), it->second.end(),
                            [](const Rec& r) { return r.IsDelete(); }))
        << "deletion of " << id << " lost";
  }
  std::printf(
      "[ figures  ] deletes: rows deleted=%zu undeleted=%zu DELETE records=%zu records=%zu\n",
      deleted_ever.size(), recovered.size(), deletes, records.size());
  EXPECT_GE(deleted_ever.size(), 30u);
  StopGracefully();
}

// The ordering gate: the row stream has read a row's last version but not yet produced it
// (its answer is slow) when the row is deleted. The DELETE must wait for that UPSERT.
TEST_F(SourceDeletes, AVersionReadBeforeTheDeletionIsProducedBeforeTheDelete) {
  props_["snow.table.inc.deletes"] = "audit";
  props_["snow.source.poll.interval.ms"] = "100";
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<std::string> ids = LoadRows({NowS() - 100, NowS() - 99, NowS() - 98});
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return ReadAll().size() >= 3; }, 20s, 100ms));
  // Every answer about incident rows now takes 4 s; sys_audit answers at once.
  emulator::LatencyKnob slow;
  slow.fixed_ms = 4000;
  slow.scope.path_prefix = "/api/now/table/incident";
  emu_->faults().SetLatency(slow);
  const std::string& id = ids[1];
  ASSERT_TRUE(emu_->store().Update("incident", id, {{"short_description", "last words"}}).ok());
  const std::string stamp((*emu_->store().Get("incident", id))->sys_updated_on());
  // Wait until a page request (not a count: limit 1) for incident has been answered (held back
  // by the latency) whose range covers the update: "...sys_updated_on<=HI..." with HI >= the new
  // sys_updated_on.
  auto decode = [](const std::string& in) {
    std::string out;
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == '%' && i + 2 < in.size()) {
        out += static_cast<char>(std::stoi(in.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        out += in[i];
      }
    }
    return out;
  };
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        for (const auto& e : emu_->journal().All()) {
          const std::string t = decode(e.target);
          const size_t hi = t.find("sys_updated_on<=");
          if (t.starts_with("/api/now/table/incident?") &&
              t.find("sysparm_limit=1&") == std::string::npos && hi != std::string::npos &&
              t.substr(hi + 16, 19) >= stamp) {
            return true;
          }
        }
        return false;
      },
      30s, 20ms));
  ASSERT_TRUE(emu_->store().Delete("incident", id).ok());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        for (const Rec& r : ReadAll()) {
          if (r.key == id && r.IsDelete()) return true;
        }
        return false;
      },
      30s, 100ms));
  // The slow answer's version arrives too, gate or not: then compare the order.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        for (const Rec& r : ReadAll()) {
          if (r.key == id && r.IsUpsert() && ModCount(r) == "1") return true;
        }
        return false;
      },
      30s, 100ms))
      << [&] {
           std::string out;
           for (const Rec& r : ReadAll()) {
             if (r.key == id) out += r.headers + " " + r.value.value_or("NULL") + "\n";
           }
           return out;
         }();
  emu_->faults().Clear();
  std::vector<Rec> mine;
  for (const Rec& r : ReadAll()) {
    if (r.key == id) mine.push_back(r);
  }
  ASSERT_GE(mine.size(), 2u);
  EXPECT_TRUE(mine.back().IsDelete()) << "an UPSERT came after the DELETE";
  ASSERT_TRUE(mine[mine.size() - 2].IsUpsert());
  EXPECT_EQ(ModCount(mine[mine.size() - 2]), "1") << "the last version was not produced first";
  // The deletes stream shows on the socket, under its table, and in the metrics.
  const boost::json::object view = Table();
  ASSERT_TRUE(view.contains("deletes")) << boost::json::serialize(view);
  const auto& deletes = view.at("deletes").as_object();
  EXPECT_EQ(deletes.at("alias").as_string(), "inc.deletes");
  EXPECT_EQ(deletes.at("table").as_string(), "sys_audit");
  EXPECT_EQ(deletes.at("rows_emitted").as_int64(), 1);
  EXPECT_NE(Get("/metrics").body.find("snowcar_source_rows_emitted_total{table=\"inc.deletes\"} 1"),
            std::string::npos);
  StopGracefully();
}

// A row deleted and restored within one second: sys_audit holds both entries under the same
// sys_created_on, and the keyset order (sys_created_on, sys_id) puts them in the random order
// of their sys_ids. The topic must still end with the row, not with its DELETE.
TEST_F(SourceDeletes, ARowRestoredInTheSecondOfItsDeletionEndsAsARow) {
  props_["snow.table.inc.deletes"] = "audit";
  props_["snow.source.poll.interval.ms"] = "100";
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<int64_t> seconds;
  for (int i = 0; i < 8; ++i) seconds.push_back(NowS() - 100 + i);
  const std::vector<std::string> ids = LoadRows(seconds);
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return ReadAll().size() >= ids.size(); }, 20s, 100ms));
  // Within one (frozen) second, delete and restore rows until a pair's RECOVERED entry sorts
  // before its DELETED one (each pair does with odds of one half).
  auto entry_id = [&](const std::string& row, std::string_view what) {
    auto audit = emu_->store().Snapshot("sys_audit");
    auto schema = emu_->store().Schema("sys_audit");
    const size_t key = *schema->IndexOf("documentkey");
    const size_t field = *schema->IndexOf("fieldname");
    for (const auto& r : *audit) {
      if (r->Get(key) == row && r->Get(field) == what) return std::string(r->sys_id());
    }
    return std::string();
  };
  emu_->clock().Freeze();
  std::vector<std::string> tried;
  bool inverted = false;
  for (size_t i = 0; i < ids.size() && !inverted; ++i) {
    ASSERT_TRUE(emu_->store().Delete("incident", ids[i]).ok());
    ASSERT_TRUE(emu_->store().Undelete("incident", ids[i]).ok());
    tried.push_back(ids[i]);
    inverted = entry_id(ids[i], "RECOVERED") < entry_id(ids[i], "DELETED");
  }
  emu_->clock().Unfreeze();
  ASSERT_TRUE(inverted) << "no pair sorted RECOVERED first in " << tried.size() << " tries";
  // Every entry handled (a DELETE or the restored row each), then the order per row.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        const boost::json::object view = Table();
        return view.contains("deletes") && view.at("deletes").at("rows_emitted").as_int64() ==
                                               static_cast<int64_t>(2 * tried.size());
      },
      30s, 50ms));
  const auto by_key = ByKey(ReadAll());
  for (const std::string& id : tried) {
    SCOPED_TRACE(id);
    ASSERT_EQ(by_key.count(id), 1u);
    const auto& rs = by_key.at(id);
    EXPECT_TRUE(std::any_of(rs.begin(), rs.end(), [](const Rec& r) { return r.IsDelete(); }));
    EXPECT_TRUE(rs.back().IsUpsert()) << "the restored row ends with its DELETE";
  }
  StopGracefully();
}

// deletes.last.row: each DELETE carries the row as sys_audit_delete kept it, read with one
// request per page of deletions; a table that is not audited keeps none (null, not lost).
TEST_F(SourceDeletes, ADeleteCarriesTheLastKnownRowWhenAskedFor) {
  props_["snow.table.inc.deletes"] = "audit";
  props_["snow.table.inc.deletes.last.row"] = "true";
  props_["snow.source.poll.interval.ms"] = "100";
  ASSERT_TRUE(broker().CreateTopic(topic_, 2).ok());
  std::vector<std::string> ids = LoadRows({NowS() - 100, NowS() - 99, NowS() - 98});
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return ReadAll().size() >= 3; }, 20s, 100ms));
  ASSERT_TRUE(emu_->store().Update("incident", ids[0], {{"short_description", "last words"}}).ok());
  ASSERT_TRUE(emu_->store().Delete("incident", ids[0]).ok());
  // Not audited from here on: the deletion is in sys_audit, the row is kept nowhere.
  emu_->store().SetDeleteAudit("incident", /*audited=*/false, /*no_audit_delete=*/false);
  ASSERT_TRUE(emu_->store().Delete("incident", ids[1]).ok());
  std::map<std::string, boost::json::object> deletes;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        for (const Rec& r : ReadAll()) {
          if (r.IsDelete()) deletes[r.key] = boost::json::parse(*r.value).as_object();
        }
        return deletes.size() == 2;
      },
      30s, 100ms));
  const boost::json::object& first = deletes.at(ids[0]);
  ASSERT_TRUE(first.at("last_row").is_object()) << boost::json::serialize(first);
  const boost::json::object& last = first.at("last_row").as_object();
  EXPECT_EQ(last.at("short_description").as_string(), "last words");
  EXPECT_EQ(last.at("sys_id").as_string(), ids[0]);
  EXPECT_EQ(last.at("sys_mod_count").as_string(), "1");
  EXPECT_FALSE(first.contains("last_row_error"));
  const boost::json::object& second = deletes.at(ids[1]);
  EXPECT_TRUE(second.at("last_row").is_null()) << boost::json::serialize(second);
  EXPECT_FALSE(second.contains("last_row_error"));
  // Once both entries are acknowledged (in the dedup window), the overlap re-reads of them
  // ask sys_audit_delete nothing more: one read per page of new deletions, not per poll.
  auto count = [&](std::string_view prefix) {
    size_t n = 0;
    for (const auto& e : emu_->journal().All()) n += e.target.starts_with(prefix) ? 1 : 0;
    return n;
  };
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        const boost::json::object view = Table();
        return view.contains("deletes") && view.at("deletes").at("rows_emitted").as_int64() == 2;
      },
      20s, 50ms));
  const size_t kept_reads = count("/api/now/table/sys_audit_delete?");
  EXPECT_GE(kept_reads, 1u);
  const size_t audit_reads = count("/api/now/table/sys_audit?");
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return count("/api/now/table/sys_audit?") >= audit_reads + 10; }, 20s, 50ms));
  EXPECT_EQ(count("/api/now/table/sys_audit_delete?"), kept_reads);
  StopGracefully();
}

// Without deletes=audit (the default) nothing but UPSERTs reaches the topic, and sys_audit is
// never asked.
TEST_F(SourceDeletes, NoDeletesByDefault) {
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  std::vector<std::string> ids = LoadRows({NowS() - 100, NowS() - 99});
  ASSERT_TRUE(emu_->store().Delete("incident", ids[0]).ok());
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return ReadAll().size() >= 1; }, 20s, 100ms));
  const size_t seq = emu_->journal().All().size();
  ASSERT_GT(seq, 0u);
  for (const auto& e : emu_->journal().All())
    EXPECT_EQ(e.target.find("sys_audit"), std::string::npos);
  for (const Rec& r : ReadAll()) EXPECT_TRUE(r.IsUpsert());
  StopGracefully();
}

}  // namespace
}  // namespace snowcar::source::it
