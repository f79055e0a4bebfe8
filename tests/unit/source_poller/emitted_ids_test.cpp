// SPDX-License-Identifier: Apache-2.0
// EmittedIds: the ids a table's pollers acknowledged, held until written into the store's id
// set, and written by the pollers themselves once enough are pending (a backfill notes every
// row of the table before the first sweep may run).
#include <gtest/gtest.h>

#include <cstdio>

#include "snowcar/state/state_store.h"
#include "source/deletes/reconciler.h"
#include "support/temp_dir.h"

namespace snowcar::source {
namespace {

std::string Id(size_t i) {
  char id[33];
  std::snprintf(id, sizeof(id), "%032zx", i);
  return id;
}

TEST(EmittedIds, AFlushIsDueOnceEnoughIdsArePendingAndWritesThemAll) {
  testsupport::TempDir dir("emitted-ids");
  auto store = state::StateStore::Open({.dir = dir.File("state")});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EmittedIds ids;
  for (size_t i = 0; i + 1 < EmittedIds::kFlushAt; ++i) EXPECT_FALSE(ids.Add(Id(i)));
  EXPECT_FALSE(ids.Add(Id(0)));        // a repeated note is one pending id
  EXPECT_FALSE(ids.Add("not-an-id"));  // not tracked: never pending
  EXPECT_FALSE(ids.FlushDue());
  // A removal is a pending note too; the note says the flush is due, as FlushDue does.
  EXPECT_TRUE(ids.Remove(Id(EmittedIds::kFlushAt - 1)));
  EXPECT_TRUE(ids.FlushDue());

  ASSERT_TRUE(ids.Flush(**store, "dev", "inc").ok());
  EXPECT_FALSE(ids.FlushDue());
  auto count = (*store)->IdSetCount("dev", "inc");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, EmittedIds::kFlushAt - 1);
  auto first = (*store)->IdSetRange("dev", "inc", "", "", 2);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, (std::vector<std::string>{Id(0), Id(1)}));
}

// The row stream writes the ids before each cursor commit and keeps the notes: a sweep holding
// a row it read as never emitted asks Noted whether the row stream acknowledged it since, and
// until the commit lands the dedup index cannot say so either.
TEST(EmittedIds, AFlushThatKeepsTheNotesWritesOnlyWhatIsNewAndStillAnswersNoted) {
  testsupport::TempDir dir("emitted-ids");
  auto store = state::StateStore::Open({.dir = dir.File("state")});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EmittedIds ids;
  ids.Add(Id(1));
  ASSERT_TRUE(ids.Flush(**store, "dev", "inc", /*keep_notes=*/true).ok());
  EXPECT_TRUE(ids.Noted(Id(1)));
  ids.Add(Id(2));
  ASSERT_TRUE(ids.Flush(**store, "dev", "inc", /*keep_notes=*/true).ok());
  auto all = (*store)->IdSetRange("dev", "inc", "", "", 10);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (std::vector<std::string>{Id(1), Id(2)}));
  EXPECT_TRUE(ids.Noted(Id(1)));
  EXPECT_TRUE(ids.Noted(Id(2)));
  // The sweep's own flush before it compares: the set holds them, the notes go.
  ASSERT_TRUE(ids.Flush(**store, "dev", "inc").ok());
  EXPECT_FALSE(ids.Noted(Id(1)));
  EXPECT_FALSE(ids.Noted(Id(2)));
}

// deletes=audit+reconcile: whichever way produces a deletion first claims it; the other drops
// its copy, until an UPSERT of the row says it is back.
TEST(EmittedIds, TheFirstWayToProduceADeletionClaimsIt) {
  EmittedIds ids;
  // The sweep first: the audit entries of that deletion (at or before the second the sweep
  // saw the row gone) are dropped; an entry after it is a later deletion and is kept.
  EXPECT_TRUE(ids.ClaimSweepDelete(Id(1), 100));
  EXPECT_FALSE(ids.ClaimAuditDelete(Id(1), 99));
  EXPECT_FALSE(ids.ClaimAuditDelete(Id(1), 100));
  EXPECT_TRUE(ids.ClaimAuditDelete(Id(1), 101));
  // The audit stream first: the sweep drops its copy, whenever it saw the row gone.
  EXPECT_TRUE(ids.ClaimAuditDelete(Id(2), 100));
  EXPECT_FALSE(ids.ClaimSweepDelete(Id(2), 105));
  // A way that claimed may claim again (its produce failed and the page is read again).
  EXPECT_TRUE(ids.ClaimAuditDelete(Id(2), 100));
  EXPECT_TRUE(ids.ClaimSweepDelete(Id(3), 100));
  EXPECT_TRUE(ids.ClaimSweepDelete(Id(3), 100));
  // The row came back: acknowledged (Add) or produced (ReleaseClaim); its next deletion is new.
  EXPECT_FALSE(ids.Add(Id(2)));
  EXPECT_TRUE(ids.ClaimSweepDelete(Id(2), 110));
  ids.ReleaseClaim(Id(3));
  EXPECT_TRUE(ids.ClaimAuditDelete(Id(3), 90));
}

TEST(EmittedIds, ClaimsPastTheLimitForgetTheOldestHalf) {
  EmittedIds ids;
  for (size_t i = 0; i <= EmittedIds::kClaimsKept; ++i) ASSERT_TRUE(ids.ClaimSweepDelete(Id(i), 5));
  // Forgotten: the audit stream may repeat the deletion (at least once, never lost).
  EXPECT_TRUE(ids.ClaimAuditDelete(Id(0), 1));
  // Kept: the newest claims still hold.
  EXPECT_FALSE(ids.ClaimAuditDelete(Id(EmittedIds::kClaimsKept), 1));
}

}  // namespace
}  // namespace snowcar::source
