// SPDX-License-Identifier: Apache-2.0
// Dedup entries are keyed like the cursor, by (instance, table alias): pointing snow.url at
// another instance (a clone) starts with no cursor and no dedup entries, and a state dir
// written by schema version 1 (entries keyed by alias only) is migrated on open without
// losing the entries of the instance it was used with.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <string>
#include <vector>

#include "raw_store.h"
#include "snowcar/state/state_store.h"
#include "state/key_codec.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class DedupInstanceTest : public testsupport::StateStoreTest {};

constexpr char kProd[] = "acme.service-now.com";
constexpr char kClone[] = "acmeclone.service-now.com";

void CommitRows(StateStore& store, const CursorIdentity& id, int64_t ts,
                const std::vector<int>& rows) {
  auto w = store.LoadDedupWindow(id, DedupPolicy{1000, 1000});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  for (int r : rows) ASSERT_TRUE((*w)->Insert({ts, testsupport::HexId(r), 0}));
  ASSERT_TRUE(store.Commit(id, {ts, testsupport::HexId(rows.back()), Phase::kStream}, **w).ok());
}

TEST_F(DedupInstanceTest, AnotherInstanceOfTheSameAliasStartsWithNoEntries) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  const CursorIdentity prod = Identity("incident", "fp1", kProd);
  const CursorIdentity clone = Identity("incident", "fp1", kClone);
  CommitRows(*store, prod, 500, {1, 2, 3});

  auto fresh = store->LoadDedupWindow(clone, DedupPolicy{1000, 1000});
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)->size(), 0u);
  EXPECT_FALSE((*fresh)->Contains({500, HexId(1), 0}));

  // The clone's own commits stay apart from the production instance's.
  CommitRows(*store, clone, 600, {7});
  EXPECT_EQ((*store->LoadDedupWindow(prod, DedupPolicy{1000, 1000}))->size(), 3u);
  EXPECT_EQ((*store->LoadDedupWindow(clone, DedupPolicy{1000, 1000}))->size(), 1u);
  EXPECT_EQ(*store->DedupCount("incident"), 4u);  // the socket's count covers both
  EXPECT_EQ(store->DedupEntriesFor("incident", HexId(7))->size(), 1u);

  // A window of one instance cannot commit under the other.
  auto prod_window = store->LoadDedupWindow(prod, DedupPolicy{1000, 1000});
  Status wrong = store->Commit(clone, {700, "", Phase::kStream}, **prod_window);
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument) << wrong.ToString();

  ASSERT_TRUE(store->ResetTable("incident").ok());
  EXPECT_EQ(*store->DedupCount("incident"), 0u);
  EXPECT_EQ((*store->LoadDedupWindow(prod, DedupPolicy{}))->size(), 0u);
  EXPECT_EQ((*store->LoadDedupWindow(clone, DedupPolicy{}))->size(), 0u);
}

// Rewrites a closed store's dedup family into the version 1 layout (part(table) ts id mod)
// and its schema version to 1, as a snowcar of that version would have left it.
// `written_at` sets the commit time stored with each cursor (which version 1 entries follow).
void RewriteAsVersion1(const std::string& dir,
                       const std::vector<std::pair<std::string, DedupKey>>& legacy,
                       const std::vector<std::pair<StoredCursor, int64_t>>& written_at) {
  testing::WithRawStore(dir, [&](rocksdb::DB& db, const testing::RawFamilies& cf) {
    rocksdb::WriteBatch batch;
    {
      std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), cf.dedup));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        ASSERT_TRUE(batch.Delete(cf.dedup, it->key()).ok());
      }
    }
    for (const auto& [stored, at] : written_at) {
      ASSERT_TRUE(batch
                      .Put(cf.cursor, codec::CursorKey(stored.identity),
                           codec::EncodeCursorValue(stored.cursor, at))
                      .ok());
    }
    for (const auto& [table, key] : legacy) {
      std::string k = codec::LegacyDedupPrefix(table);
      codec::AppendDedupSuffix(&k, key.ts, key.sys_id, key.mod_count);
      ASSERT_TRUE(batch.Put(cf.dedup, k, rocksdb::Slice()).ok());
    }
    ASSERT_TRUE(
        batch.Put(cf.meta, std::string(codec::kSchemaVersionKey), codec::EncodeSchemaVersion(1))
            .ok());
    ASSERT_TRUE(db.Write(rocksdb::WriteOptions(), &batch).ok());
  });
}

TEST_F(DedupInstanceTest, AVersionOneDirOpensAndKeepsItsEntriesForItsInstance) {
  TempDir tmp;
  const CursorIdentity prod = Identity("incident", "fp1", kProd);
  const CursorIdentity old_dev = Identity("incident", "fp1", "dev.service-now.com");
  const CursorIdentity problem = Identity("problem", "fp2", kProd);
  {
    auto store = OpenOrDie(tmp.path());
    // The alias was once pointed at a dev instance, then at production (written later).
    CommitRows(*store, old_dev, 400, {90});
    CommitRows(*store, prod, 500, {1, 2});
    CommitRows(*store, problem, 500, {3});
  }
  RewriteAsVersion1(tmp.path(),
                    {{"incident", {500, HexId(1), 0}},
                     {"incident", {500, HexId(2), 0}},
                     {"problem", {500, HexId(3), 0}},
                     {"orphan", {500, HexId(4), 0}}},
                    {{StoredCursor{old_dev, {400, HexId(90), Phase::kStream}}, 1000},
                     {StoredCursor{prod, {500, HexId(2), Phase::kStream}}, 2000}});

  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(store->schema_version(), kSchemaVersion);
  auto prod_window = store->LoadDedupWindow(prod, DedupPolicy{1000, 1000});
  ASSERT_TRUE(prod_window.ok()) << prod_window.status().ToString();
  EXPECT_EQ((*prod_window)->size(), 2u);
  EXPECT_TRUE((*prod_window)->Contains({500, HexId(1), 0}));
  EXPECT_TRUE((*prod_window)->Contains({500, HexId(2), 0}));
  EXPECT_EQ((*store->LoadDedupWindow(old_dev, DedupPolicy{1000, 1000}))->size(), 0u);
  EXPECT_TRUE(
      (*store->LoadDedupWindow(problem, DedupPolicy{1000, 1000}))->Contains({500, HexId(3), 0}));
  EXPECT_EQ(**store->LoadCursor(prod), (Cursor{500, HexId(2), Phase::kStream}));
  // No version 1 key is left behind (the orphan had no cursor and is dropped).
  EXPECT_EQ(*store->DedupCount("incident"), 2u);
  EXPECT_EQ(*store->DedupCount("orphan"), 0u);

  // A second open finds the current version and changes nothing.
  store.reset();
  store = OpenOrDie(tmp.path());
  EXPECT_EQ((*store->LoadDedupWindow(prod, DedupPolicy{1000, 1000}))->size(), 2u);
}

TEST_F(DedupInstanceTest, ReplaceTableSwapsEveryInstancesStateInOneWrite) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  const CursorIdentity prod = Identity("incident", "fp1", kProd);
  const CursorIdentity clone = Identity("incident", "fp1", kClone);
  CommitRows(*store, clone, 300, {8});
  CommitRows(*store, prod, 400, {1});
  ASSERT_TRUE(store
                  ->ReplaceTable(prod, {1000, HexId(3), Phase::kStream},
                                 {{10, HexId(9), 0}, {1000, HexId(2), 1}, {1000, HexId(3), 1}},
                                 DedupPolicy{2, 1000})
                  .ok());
  EXPECT_EQ(**store->LoadCursor(prod), (Cursor{1000, HexId(3), Phase::kStream}));
  EXPECT_FALSE(store->LoadCursor(clone)->has_value());
  // Pruned like a commit: the entry far below the cursor minus the overlap is not written.
  auto entries = store->DedupEntries(prod);
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(*entries, (std::vector<DedupKey>{{1000, HexId(2), 1}, {1000, HexId(3), 1}}));
  EXPECT_EQ(*store->DedupCount("incident"), 2u);
}

}  // namespace
}  // namespace snowcar::state
