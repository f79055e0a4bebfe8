// SPDX-License-Identifier: Apache-2.0
// The idset family: a table's emitted-and-not-deleted sys_ids and its sweep state.
#include <gtest/gtest.h>

#include <algorithm>

#include "snowcar/state/state_store.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class IdSetTest : public testsupport::StateStoreTest {};

constexpr char kInst[] = "acme.service-now.com";

TEST_F(IdSetTest, RangesAreSortedHalfOpenAndSurviveAReopen) {
  TempDir tmp;
  std::vector<std::string> ids;
  for (uint64_t i = 1; i <= 50; ++i) ids.push_back(HexId(i));
  std::sort(ids.begin(), ids.end());
  {
    auto store = OpenOrDie(tmp.path());
    ASSERT_TRUE(store->UpdateIdSet(kInst, "inc", ids, {}).ok());
    ASSERT_TRUE(store->UpdateIdSet(kInst, "inc", {}, {ids[3], ids[4]}).ok());
    ASSERT_TRUE(store->UpdateIdSet("other.service-now.com", "inc", {ids[4]}, {}).ok());
  }
  auto store = OpenOrDie(tmp.path());
  auto all = store->IdSetRange(kInst, "inc", "", "", 1000);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 48u);
  EXPECT_TRUE(std::is_sorted(all->begin(), all->end()));
  EXPECT_EQ(std::count(all->begin(), all->end(), ids[4]), 0);
  EXPECT_EQ(*store->IdSetCount(kInst, "inc"), 48u);
  EXPECT_EQ(*store->IdSetCount("other.service-now.com", "inc"), 1u);

  // (after, up_to]: ids[10] left out, ids[20] included.
  auto range = store->IdSetRange(kInst, "inc", ids[10], ids[20], 1000);
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->size(), 10u);
  EXPECT_EQ(range->front(), ids[11]);
  EXPECT_EQ(range->back(), ids[20]);
  // The limit cuts from the front.
  EXPECT_EQ(store->IdSetRange(kInst, "inc", "", "", 2)->back(), ids[1]);
}

TEST_F(IdSetTest, TablesDoNotSeeEachOthersIdsAndBadIdsAreRefused) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(store->UpdateIdSet(kInst, "a", {HexId(1)}, {}).ok());
  ASSERT_TRUE(store->UpdateIdSet(kInst, "ab", {HexId(2)}, {}).ok());
  EXPECT_EQ(*store->IdSetRange(kInst, "a", "", "", 10), std::vector<std::string>{HexId(1)});
  Status bad = store->UpdateIdSet(kInst, "a", {"INC0010001"}, {});
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("INC0010001"), std::string::npos);
  EXPECT_EQ(store->UpdateIdSet(kInst, "a", {}, {"0123456789ABCDEF0123456789ABCDEF"}).code(),
            StatusCode::kInvalidArgument);
}

TEST_F(IdSetTest, SweepStateIsKeptPerTable) {
  TempDir tmp;
  {
    auto store = OpenOrDie(tmp.path());
    EXPECT_FALSE(store->GetSweepState(kInst, "inc")->has_value());
    ASSERT_TRUE(store->PutSweepState(kInst, "inc", "{\"after\":\"x\"}").ok());
  }
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(store->GetSweepState(kInst, "inc")->value_or(""), "{\"after\":\"x\"}");
  EXPECT_FALSE(store->GetSweepState(kInst, "inc2")->has_value());
}

TEST_F(IdSetTest, ClearEmptiesOneTablesSetAndKeepsItsSweepAndManifest) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  const std::vector<std::string> ids = {HexId(1), HexId(2), HexId(3)};
  ASSERT_TRUE(store->UpdateIdSet(kInst, "inc", ids, {}).ok());
  ASSERT_TRUE(store->UpdateIdSet(kInst, "inc2", ids, {}).ok());
  ASSERT_TRUE(store->PutSweepState(kInst, "inc", "sweep").ok());
  EXPECT_FALSE(store->GetIdSetManifest(kInst, "inc")->has_value());
  ASSERT_TRUE(store->PutIdSetManifest(kInst, "inc", "manifest").ok());

  ASSERT_TRUE(store->ClearIdSet(kInst, "inc").ok());
  EXPECT_EQ(*store->IdSetCount(kInst, "inc"), 0u);
  EXPECT_EQ(*store->IdSetCount(kInst, "inc2"), 3u);
  EXPECT_EQ(store->GetSweepState(kInst, "inc")->value_or(""), "sweep");
  EXPECT_EQ(store->GetIdSetManifest(kInst, "inc")->value_or(""), "manifest");
  EXPECT_FALSE(store->GetIdSetManifest(kInst, "inc2")->has_value());
  // The manifest is not an id: the set's ranges never see it.
  ASSERT_TRUE(store->UpdateIdSet(kInst, "inc", {HexId(7)}, {}).ok());
  EXPECT_EQ(store->IdSetRange(kInst, "inc", "", "", 10)->size(), 1u);
}

}  // namespace
}  // namespace snowcar::state
