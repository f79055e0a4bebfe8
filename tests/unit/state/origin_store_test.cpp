// SPDX-License-Identifier: Apache-2.0
// The origin family: exact lookups per version, the count and age bounds, rewrites, restarts,
// and a state dir made before the family existed.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <string>
#include <vector>

#include "snowcar/state/state_store.h"
#include "state/key_codec.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class OriginStoreTest : public testsupport::StateStoreTest {};

constexpr char kInstance[] = "acme.service-now.com";

OriginKey Key(uint64_t row, uint32_t mod, const std::string& table = "incident",
              const std::string& instance = kInstance) {
  return OriginKey{instance, table, testsupport::HexId(row), mod};
}

Origin At(int64_t offset, int64_t written_at_ms) {
  Origin o;
  o.topic = "snow.commands";
  o.partition = 2;
  o.offset = offset;
  o.operation = "PATCH";
  o.written_at_ms = written_at_ms;
  return o;
}

bool Has(StateStore& store, const OriginKey& k) {
  auto found = store.FindOrigin(k.instance, k.table, k.sys_id, k.mod_count);
  EXPECT_TRUE(found.ok()) << found.status().ToString();
  return found.ok() && found->has_value();
}

TEST_F(OriginStoreTest, FindsExactlyTheRecordedVersion) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  Origin o = At(41, 1'000'000);
  o.correlation = "ext-7";
  o.request_id = "req-1";
  o.sys_updated_on = "2026-12-03 19:00:00";
  ASSERT_TRUE(store->RecordOrigin(Key(1, 3), o, OriginPolicy{}).ok());

  auto found = store->FindOrigin(kInstance, "incident", HexId(1), 3);
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(**found, o);
  // Any other version, row, table or instance is not the sink's.
  EXPECT_FALSE(Has(*store, Key(1, 4)));
  EXPECT_FALSE(Has(*store, Key(1, 2)));
  EXPECT_FALSE(Has(*store, Key(2, 3)));
  EXPECT_FALSE(Has(*store, Key(1, 3, "problem")));
  EXPECT_FALSE(Has(*store, Key(1, 3, "incident", "clone.service-now.com")));
  EXPECT_EQ(*store->OriginCount(), 1u);
}

TEST_F(OriginStoreTest, TheOldestGoBeyondTheCount) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  OriginPolicy policy;
  policy.window_records = 3;
  for (uint32_t v = 0; v < 5; ++v) {
    ASSERT_TRUE(store->RecordOrigin(Key(1, v), At(v, 1'000'000 + v), policy).ok());
  }
  EXPECT_EQ(*store->OriginCount(), 3u);
  EXPECT_FALSE(Has(*store, Key(1, 0)));
  EXPECT_FALSE(Has(*store, Key(1, 1)));
  for (uint32_t v = 2; v < 5; ++v) EXPECT_TRUE(Has(*store, Key(1, v))) << v;
  auto listed = store->OriginsFor("incident", HexId(1));
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 3u);
  EXPECT_EQ((*listed)[0].key.mod_count, 2u);
  EXPECT_EQ((*listed)[2].origin.offset, 4);
}

TEST_F(OriginStoreTest, EntriesOlderThanTheWindowGoWithTheNextRecord) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  OriginPolicy policy;
  policy.window_seconds = 10;
  ASSERT_TRUE(store->RecordOrigin(Key(1, 0), At(0, 1'000'000), policy).ok());
  ASSERT_TRUE(store->RecordOrigin(Key(2, 0), At(1, 1'005'000), policy).ok());
  // 10 s after the first: still inside.
  ASSERT_TRUE(store->RecordOrigin(Key(3, 0), At(2, 1'010'000), policy).ok());
  EXPECT_EQ(*store->OriginCount(), 3u);
  // 10.001 s after the first, 5.001 s after the second.
  ASSERT_TRUE(store->RecordOrigin(Key(4, 0), At(3, 1'010'001), policy).ok());
  EXPECT_FALSE(Has(*store, Key(1, 0)));
  EXPECT_TRUE(Has(*store, Key(2, 0)));
  EXPECT_EQ(*store->OriginCount(), 3u);
  ASSERT_TRUE(store->RecordOrigin(Key(5, 0), At(4, 1'100'000), policy).ok());
  EXPECT_EQ(*store->OriginCount(), 1u);
  EXPECT_TRUE(Has(*store, Key(5, 0)));
}

// A clock the test moves by hand.
class HandClock final : public Clock {
 public:
  int64_t NowMillis() const override { return now_ms; }
  int64_t now_ms = 0;
};

TEST_F(OriginStoreTest, AnEntryOlderThanTheWindowIsNoMatchEvenBeforeItIsPruned) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  HandClock clock;
  clock.now_ms = 1'000'000;
  store->SetOriginWindow(10, &clock);
  OriginPolicy policy;
  policy.window_seconds = 10;
  ASSERT_TRUE(store->RecordOrigin(Key(1, 0), At(0, 1'000'000), policy).ok());
  ASSERT_TRUE(store->RecordOrigin(Key(2, 0), At(1, 1'005'000), policy).ok());
  clock.now_ms = 1'010'000;  // 10 s after the first: still inside
  EXPECT_TRUE(Has(*store, Key(1, 0)));
  // The sink writes nothing more, so nothing is pruned; the lookup forgets the first anyway.
  clock.now_ms = 1'010'001;
  EXPECT_FALSE(Has(*store, Key(1, 0)));
  EXPECT_TRUE(Has(*store, Key(2, 0)));
  EXPECT_EQ(*store->OriginCount(), 2u) << "still on disk until the next record prunes it";
  clock.now_ms = 1'100'000;
  EXPECT_FALSE(Has(*store, Key(2, 0)));
}

TEST_F(OriginStoreTest, RecordingAVersionAgainCountsItOnce) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  OriginPolicy policy;
  policy.window_records = 2;
  ASSERT_TRUE(store->RecordOrigin(Key(1, 1), At(10, 1'000'000), policy).ok());
  ASSERT_TRUE(store->RecordOrigin(Key(1, 1), At(11, 1'000'500), policy).ok());
  ASSERT_TRUE(store->RecordOrigin(Key(1, 1), At(11, 1'000'500), policy).ok());
  EXPECT_EQ(*store->OriginCount(), 1u);
  EXPECT_EQ(store->FindOrigin(kInstance, "incident", HexId(1), 1)->value().offset, 11);
  ASSERT_TRUE(store->RecordOrigin(Key(2, 0), At(12, 1'001'000), policy).ok());
  ASSERT_TRUE(store->RecordOrigin(Key(3, 0), At(13, 1'002'000), policy).ok());
  // The rewritten version took its new time: it was the oldest and went first.
  EXPECT_FALSE(Has(*store, Key(1, 1)));
  EXPECT_TRUE(Has(*store, Key(2, 0)));
  EXPECT_TRUE(Has(*store, Key(3, 0)));
  EXPECT_EQ(*store->OriginCount(), 2u);
}

TEST_F(OriginStoreTest, ZeroRecordsRemembersNothing) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  OriginPolicy policy;
  policy.window_records = 0;
  ASSERT_TRUE(store->RecordOrigin(Key(1, 1), At(1, 1'000'000), policy).ok());
  EXPECT_FALSE(Has(*store, Key(1, 1)));
  EXPECT_EQ(*store->OriginCount(), 0u);
}

TEST_F(OriginStoreTest, SurvivesReopenAndKeepsPruning) {
  TempDir tmp;
  OriginPolicy policy;
  policy.window_records = 2;
  {
    auto store = OpenOrDie(tmp.path());
    ASSERT_TRUE(store->RecordOrigin(Key(1, 0), At(0, 1'000'000), policy).ok());
    ASSERT_TRUE(store->RecordOrigin(Key(1, 1), At(1, 1'000'001), policy).ok());
  }
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(*store->OriginCount(), 2u);
  EXPECT_TRUE(Has(*store, Key(1, 0)));
  ASSERT_TRUE(store->RecordOrigin(Key(1, 2), At(2, 1'000'002), policy).ok());
  EXPECT_FALSE(Has(*store, Key(1, 0)));
  EXPECT_TRUE(Has(*store, Key(1, 1)));
  EXPECT_TRUE(Has(*store, Key(1, 2)));
  EXPECT_EQ(*store->OriginCount(), 2u);
}

TEST_F(OriginStoreTest, RowsDoNotRunIntoEachOther) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(store->RecordOrigin(OriginKey{kInstance, "inc", "ab", 1}, At(1, 1), {}).ok());
  ASSERT_TRUE(store->RecordOrigin(OriginKey{kInstance, "inc", "a", 1}, At(2, 2), {}).ok());
  ASSERT_TRUE(store->RecordOrigin(OriginKey{"other", "inc", "a", 0}, At(3, 3), {}).ok());
  auto a = store->OriginsFor("inc", "a");
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[0].key.instance, "other");  // version 0 first
  EXPECT_EQ((*a)[1].origin.offset, 2);
  EXPECT_EQ(store->OriginsFor("inc", "ab")->size(), 1u);
  EXPECT_TRUE(store->OriginsFor("in", "ca")->empty());
  EXPECT_EQ(store->RecordOrigin(OriginKey{kInstance, "", "a", 1}, At(1, 1), {}).code(),
            StatusCode::kInvalidArgument);
}

// A dir written before the origin family existed has the four older families only: it opens,
// gains the family, and keeps its data.
TEST_F(OriginStoreTest, ADirWithoutTheFamilyGainsIt) {
  TempDir tmp;
  {
    auto store = OpenOrDie(tmp.path());
    ASSERT_TRUE(store->PutCorrelation("incident", "u_ext", "x", HexId(1)).ok());
  }
  {
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), tmp.path(), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const auto& n : names) cfs.emplace_back(n, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), tmp.path(), cfs, &handles, &db).ok());
    for (auto* h : handles) {
      if (h->GetName() == codec::kOriginCf) {
        ASSERT_TRUE(db->DropColumnFamily(h).ok());
      }
    }
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    delete db;
    names.clear();
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), tmp.path(), &names).ok());
    ASSERT_EQ(std::count(names.begin(), names.end(), codec::kOriginCf), 0);
  }
  auto store = OpenOrDie(tmp.path());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->GetCorrelation("incident", "u_ext", "x")->value_or(""), HexId(1));
  ASSERT_TRUE(store->RecordOrigin(Key(1, 0), At(0, 1), {}).ok());
  EXPECT_TRUE(Has(*store, Key(1, 0)));
}

}  // namespace
}  // namespace snowcar::state
