// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "snowcar/common/time.h"
#include "snowcar/state/state_store.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class CursorStoreTest : public testsupport::StateStoreTest {};

Status CommitCursor(StateStore& store, const CursorIdentity& id, const Cursor& c) {
  auto w = store.LoadDedupWindow(id, DedupPolicy{});
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return store.Commit(id, c, **w);
}

TEST_F(CursorStoreTest, NoCursorUntilTheFirstCommit) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto c = store->LoadCursor(Identity("incident"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->has_value());
  auto all = store->ListCursors();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

TEST_F(CursorStoreTest, CommittedCursorSurvivesReopen) {
  TempDir tmp;
  const Cursor want{1764664800, "0123456789abcdef0123456789abcdef", Phase::kStream};
  const int64_t before = SystemClock::Instance().NowMillis();
  {
    auto store = OpenOrDie(tmp.path());
    ASSERT_TRUE(CommitCursor(*store, Identity("incident"), want).ok());
  }
  auto store = OpenOrDie(tmp.path());
  auto got = store->LoadCursor(Identity("incident"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ(**got, want);
  auto listed = store->CursorsForTable("incident");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].identity, Identity("incident"));
  EXPECT_GE((*listed)[0].updated_at_ms, before);
  EXPECT_EQ(PhaseName((*listed)[0].cursor.phase), "stream");
}

TEST_F(CursorStoreTest, LaterCommitReplacesTheCursor) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(CommitCursor(*store, Identity("incident"), {100, "a", Phase::kBackfill}).ok());
  ASSERT_TRUE(CommitCursor(*store, Identity("incident"), {200, "b", Phase::kStream}).ok());
  auto got = store->LoadCursor(Identity("incident"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(**got, (Cursor{200, "b", Phase::kStream}));
  EXPECT_EQ(store->ListCursors()->size(), 1u);
}

TEST_F(CursorStoreTest, DifferentFingerprintIsRefusedNamingBothAndTheReset) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(CommitCursor(*store, Identity("incident", "fp-old"), {100, "", Phase::kStream}).ok());
  auto got = store->LoadCursor(Identity("incident", "fp-new"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition);
  const std::string& msg = got.status().message();
  EXPECT_NE(msg.find("fp-old"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fp-new"), std::string::npos) << msg;
  EXPECT_NE(msg.find("snowcar state reset incident"), std::string::npos) << msg;
  // The stored cursor is untouched by the refusal.
  auto old = store->LoadCursor(Identity("incident", "fp-old"));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ((*old)->ts, 100);
}

TEST_F(CursorStoreTest, DifferentTimestampFieldIsRefused) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(CommitCursor(*store, Identity("incident"), {100, "", Phase::kStream}).ok());
  auto got =
      store->LoadCursor(Identity("incident", "fp1", "acme.service-now.com", "sys_created_on"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(got.status().message().find("sys_created_on"), std::string::npos);
  EXPECT_NE(got.status().message().find("sys_updated_on"), std::string::npos);
}

TEST_F(CursorStoreTest, OtherTablesAndInstancesAreIndependent) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(CommitCursor(*store, Identity("incident"), {100, "", Phase::kStream}).ok());
  // "inc" shares a name prefix with "incident" but is another table.
  auto other_table = store->LoadCursor(Identity("inc", "fp-x"));
  ASSERT_TRUE(other_table.ok()) << other_table.status().ToString();
  EXPECT_FALSE(other_table->has_value());
  auto other_instance = store->LoadCursor(Identity("incident", "fp-x", "dev.service-now.com"));
  ASSERT_TRUE(other_instance.ok()) << other_instance.status().ToString();
  EXPECT_FALSE(other_instance->has_value());
}

TEST_F(CursorStoreTest, ResetTableRemovesItsCursorsAndDedupOnly) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  for (const char* table : {"incident", "incident_task"}) {
    auto w = store->LoadDedupWindow(Identity(table), DedupPolicy{2, 100});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Insert({100, HexId(1), 0}));
    ASSERT_TRUE(store->Commit(Identity(table), {100, HexId(1), Phase::kStream}, **w).ok());
  }
  ASSERT_TRUE(store->ResetTable("incident").ok());
  EXPECT_FALSE(store->LoadCursor(Identity("incident"))->has_value());
  EXPECT_EQ(*store->DedupCount("incident"), 0u);
  EXPECT_TRUE(store->LoadCursor(Identity("incident_task"))->has_value());
  EXPECT_EQ(*store->DedupCount("incident_task"), 1u);
  // After a reset another query may start the table afresh.
  auto fresh = store->LoadCursor(Identity("incident", "fp-new"));
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->has_value());
}

TEST_F(CursorStoreTest, EmptyTableNameIsRejected) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto got = store->LoadCursor(Identity(""));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace snowcar::state
