// SPDX-License-Identifier: Apache-2.0
// The dedup family's layout (schema version 3): a commit writes its new entries as one block
// value, the blocks on disk hold exactly what the window holds, a damaged block is reported by
// table and block, and a version 2 dir (a key per entry) is packed into blocks on open.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <string>
#include <utility>
#include <vector>

#include "raw_store.h"
#include "snowcar/state/state_store.h"
#include "state/dedup_block.h"
#include "state/key_codec.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class DedupLayoutTest : public testsupport::StateStoreTest {};

using testing::RawFamilies;
using testing::WithRawStore;

// The dedup family's keys and values, in key order.
std::vector<std::pair<std::string, std::string>> RawDedup(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  WithRawStore(dir, [&](rocksdb::DB& db, const RawFamilies& cf) {
    std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), cf.dedup));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out.emplace_back(it->key().ToString(), it->value().ToString());
    }
  });
  return out;
}

size_t EntriesIn(const std::string& value) {
  block::Reader reader(value);
  size_t n = 0;
  int64_t ts;
  std::string_view id;
  uint32_t mod;
  while (reader.Next(&ts, &id, &mod)) ++n;
  EXPECT_TRUE(reader.ok());
  return n;
}

// Emits rows 0 .. rows-1 (row r at second 1000 + r) into a window of `cap` entries and commits
// after every `every` rows. The overlap is so long that nothing is pruned by time: only the
// cap drops entries.
void EmitRows(const std::string& dir, const CursorIdentity& id, size_t cap, int rows, int every) {
  auto store = testsupport::OpenStateStore(dir);
  auto w = store->LoadDedupWindow(id, DedupPolicy{1'000'000, cap});
  ASSERT_TRUE(w.ok());
  for (int row = 0; row < rows; ++row) {
    ASSERT_TRUE((*w)->Insert({1000 + row, testsupport::HexId(row), 0}));
    if (row % every == every - 1) {
      ASSERT_TRUE(
          store->Commit(id, {1000 + row, testsupport::HexId(row), Phase::kStream}, **w).ok());
    }
  }
}

TEST_F(DedupLayoutTest, EachCommitWritesOneBlockAndTheCapDropsWholeBlocks) {
  TempDir tmp;
  const CursorIdentity id = Identity("incident");
  EmitRows(tmp.path(), id, 1000, 3000, 100);
  const auto raw = RawDedup(tmp.path());
  ASSERT_EQ(raw.size(), 10u);  // the newest 1 000 entries, as the 10 newest commits wrote them
  const std::string prefix = codec::DedupPrefix(id.instance, id.table);
  for (size_t i = 0; i < raw.size(); ++i) {
    std::string key = prefix;
    codec::AppendBlockSeq(&key, 21 + i);
    EXPECT_EQ(raw[i].first, key);
    EXPECT_EQ(EntriesIn(raw[i].second), 100u);
  }
  auto store = OpenOrDie(tmp.path());
  auto w = store->LoadDedupWindow(id, DedupPolicy{1'000'000, 1000});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ((*w)->size(), 1000u);
  EXPECT_FALSE((*w)->Contains({1000 + 1999, HexId(1999), 0}));
  EXPECT_TRUE((*w)->Contains({1000 + 2000, HexId(2000), 0}));
}

TEST_F(DedupLayoutTest, ABlockTheCapCutsIsRewrittenWithWhatStays) {
  TempDir tmp;
  const CursorIdentity id = Identity("incident");
  EmitRows(tmp.path(), id, 250, 300, 100);
  // Rows 50..299 stay: the first block lost its first half and holds the second.
  const auto raw = RawDedup(tmp.path());
  ASSERT_EQ(raw.size(), 3u);
  EXPECT_EQ(EntriesIn(raw[0].second), 50u);
  EXPECT_EQ(EntriesIn(raw[1].second), 100u);
  EXPECT_EQ(EntriesIn(raw[2].second), 100u);
  auto store = OpenOrDie(tmp.path());
  auto entries = store->DedupEntries(id);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 250u);
  EXPECT_EQ(entries->front(), (DedupKey{1050, HexId(50), 0}));
  EXPECT_EQ(entries->back(), (DedupKey{1299, HexId(299), 0}));
}

TEST_F(DedupLayoutTest, AnUnreadableBlockIsReportedByTableAndBlock) {
  TempDir tmp;
  const CursorIdentity id = Identity("incident");
  {
    auto store = OpenOrDie(tmp.path());
    auto w = store->LoadDedupWindow(id, DedupPolicy{});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Insert({1000, HexId(1), 0}));
    ASSERT_TRUE(store->Commit(id, {1000, HexId(1), Phase::kStream}, **w).ok());
  }
  const auto raw = RawDedup(tmp.path());
  ASSERT_EQ(raw.size(), 1u);
  WithRawStore(tmp.path(), [&](rocksdb::DB& db, const RawFamilies& cf) {
    ASSERT_TRUE(db.Put(rocksdb::WriteOptions(), cf.dedup, raw[0].first,
                       raw[0].second.substr(0, raw[0].second.size() - 3))
                    .ok());
  });
  auto store = OpenOrDie(tmp.path());
  auto w = store->LoadDedupWindow(id, DedupPolicy{});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(w.status().message().find("dedup block 1 of table 'incident' is unreadable"),
            std::string::npos)
      << w.status().ToString();
  EXPECT_FALSE(store->DedupCount("incident").ok());
}

// Rewrites a closed store's dedup family in the version 2 layout (a key per entry) and its
// schema version to 2, as a snowcar of that version would have left it.
void RewriteAsVersion2(const std::string& dir,
                       const std::vector<std::pair<CursorIdentity, DedupKey>>& entries) {
  WithRawStore(dir, [&](rocksdb::DB& db, const RawFamilies& cf) {
    rocksdb::WriteBatch batch;
    std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), cf.dedup));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      ASSERT_TRUE(batch.Delete(cf.dedup, it->key()).ok());
    }
    for (const auto& [id, key] : entries) {
      std::string k = codec::DedupPrefix(id.instance, id.table);
      codec::AppendDedupSuffix(&k, key.ts, key.sys_id, key.mod_count);
      ASSERT_TRUE(batch.Put(cf.dedup, k, rocksdb::Slice()).ok());
    }
    ASSERT_TRUE(
        batch.Put(cf.meta, std::string(codec::kSchemaVersionKey), codec::EncodeSchemaVersion(2))
            .ok());
    ASSERT_TRUE(db.Write(rocksdb::WriteOptions(), &batch).ok());
  });
}

TEST_F(DedupLayoutTest, AVersionTwoDirIsPackedIntoBlocksOnOpen) {
  TempDir tmp;
  const CursorIdentity incident = Identity("incident");
  const CursorIdentity problem = Identity("problem", "fp2");
  std::vector<std::pair<CursorIdentity, DedupKey>> v2;
  v2.reserve(5002);
  for (int row = 0; row < 5000; ++row) v2.push_back({incident, {100 + row / 3, HexId(row), 0}});
  v2.push_back({problem, {7, "not-a-hex-id", 2}});
  v2.push_back({problem, {9, HexId(1), 1}});
  {
    auto store = OpenOrDie(tmp.path());
    for (const CursorIdentity& id : {incident, problem}) {
      auto w = store->LoadDedupWindow(id, DedupPolicy{});
      ASSERT_TRUE(w.ok());
      ASSERT_TRUE(store->Commit(id, {100, HexId(0), Phase::kStream}, **w).ok());
    }
  }
  RewriteAsVersion2(tmp.path(), v2);
  {
    auto store = OpenOrDie(tmp.path());
    EXPECT_EQ(store->schema_version(), 3u);
    EXPECT_EQ(*store->DedupCount("incident"), 5000u);
    auto w = store->LoadDedupWindow(incident, DedupPolicy{1'000'000, 10'000});
    ASSERT_TRUE(w.ok());
    EXPECT_EQ((*w)->size(), 5000u);
    EXPECT_TRUE((*w)->Contains({100, HexId(0), 0}));
    EXPECT_TRUE((*w)->Contains({100 + 4999 / 3, HexId(4999), 0}));
    // The packed blocks go on like any other: a commit appends one and the cap drops from
    // the front.
    auto small = store->LoadDedupWindow(incident, DedupPolicy{1'000'000, 5000});
    ASSERT_TRUE(small.ok());
    ASSERT_TRUE((*small)->Insert({5000, HexId(9999), 0}));
    ASSERT_TRUE(store->Commit(incident, {5000, HexId(9999), Phase::kStream}, **small).ok());
    auto problems = store->DedupEntries(problem);
    ASSERT_TRUE(problems.ok());
    EXPECT_EQ(*problems, (std::vector<DedupKey>{{7, "not-a-hex-id", 2}, {9, HexId(1), 1}}));
  }
  // problem's block first (its prefix is shorter), then incident's: 4 096 entries, then 904,
  // then the commit's one, and the cap took the oldest.
  const auto raw = RawDedup(tmp.path());
  ASSERT_EQ(raw.size(), 4u);
  EXPECT_EQ(EntriesIn(raw[0].second), 2u);
  EXPECT_EQ(EntriesIn(raw[1].second), 4095u);
  EXPECT_EQ(EntriesIn(raw[2].second), 904u);
  EXPECT_EQ(EntriesIn(raw[3].second), 1u);
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(store->schema_version(), 3u);
  auto w = store->LoadDedupWindow(incident, DedupPolicy{1'000'000, 5000});
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE((*w)->Contains({100, HexId(0), 0}));
  EXPECT_TRUE((*w)->Contains({100, HexId(1), 0}));
  EXPECT_TRUE((*w)->Contains({5000, HexId(9999), 0}));
}

}  // namespace
}  // namespace snowcar::state
