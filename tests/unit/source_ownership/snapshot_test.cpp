// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <atomic>

#include "snowcar/source/rows/keyset_query.h"
#include "source/deletes/audit_stream.h"
#include "source/snapshot/table_snapshot.h"
#include "support/state_fixture.h"
#include "support/temp_dir.h"

namespace snowcar::source {
namespace {

state::CursorIdentity Identity(const std::string& table, const std::string& query = "fp1") {
  return {"acme.service-now.com", table, query, "sys_updated_on"};
}

std::string Hex(int i) {
  std::string s = std::to_string(i);
  return std::string(32 - s.size(), '0') + s;
}

TableSnapshot Sample(int entries) {
  TableSnapshot s;
  s.identity = Identity("inc");
  s.cursor = {1700000100, Hex(entries), state::Phase::kStream};
  for (int i = 0; i < entries; ++i) {
    s.dedup.push_back({1700000099 + i / 10, Hex(i), static_cast<uint32_t>(i % 3)});
  }
  s.replica = "pod-1";
  s.written_at_ms = 1700000100123;
  return s;
}

std::unique_ptr<state::StateStore> Open(const testsupport::TempDir& dir) {
  auto store = state::StateStore::Open({.dir = dir.File("state")});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(store).value() : nullptr;
}

const state::DedupPolicy kPolicy{2, 1000};

// Commits `keys` under `cursor`, as a poller would.
void CommitState(state::StateStore& store, const state::CursorIdentity& id,
                 const state::Cursor& cursor, const std::vector<state::DedupKey>& keys) {
  auto window = store.LoadDedupWindow(id, kPolicy);
  ASSERT_TRUE(window.ok());
  for (const auto& k : keys) (*window)->Insert(k);
  ASSERT_TRUE(store.Commit(id, cursor, **window).ok());
}

TEST(SnapshotEncodingTest, RoundTripsEveryField) {
  const TableSnapshot in = Sample(25);
  auto out = DecodeSnapshot(EncodeSnapshot(in, 1 << 20));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->SameState(in));
  EXPECT_EQ(out->identity, in.identity);
  EXPECT_EQ(out->cursor, in.cursor);
  EXPECT_EQ(out->replica, "pod-1");
  EXPECT_EQ(out->written_at_ms, in.written_at_ms);
  EXPECT_FALSE(out->truncated);
}

TEST(SnapshotEncodingTest, OverTheSizeCapKeepsTheNewestEntriesAndSaysSo) {
  const TableSnapshot in = Sample(1000);
  const std::string text = EncodeSnapshot(in, 8000);
  EXPECT_LE(text.size(), 8000u);
  auto out = DecodeSnapshot(text);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->truncated);
  ASSERT_GT(out->dedup.size(), 10u);
  ASSERT_LT(out->dedup.size(), in.dedup.size());
  // The kept entries are the newest ones, still oldest first.
  const size_t dropped = in.dedup.size() - out->dedup.size();
  for (size_t i = 0; i < out->dedup.size(); ++i) EXPECT_EQ(out->dedup[i], in.dedup[dropped + i]);
  EXPECT_EQ(out->cursor, in.cursor);
}

TEST(SnapshotEncodingTest, RefusesRecordsThatAreNotSnapshots) {
  for (const char* bad : {
           "not json",
           "[1,2]",
           R"({"v":2,"identity":{},"cursor":{},"dedup":[]})",
           R"({"v":1,"cursor":{"ts":1,"sys_id":"a","phase":1},"dedup":[]})",
           R"({"v":1,"identity":{"instance":"i","table":"t","query_fingerprint":"q",)"
           R"("timestamp_field":"f"},"cursor":{"ts":1,"sys_id":"a","phase":7},"dedup":[]})",
           R"({"v":1,"identity":{"instance":"i","table":"t","query_fingerprint":"q",)"
           R"("timestamp_field":"f"},"cursor":{"ts":1,"sys_id":"a","phase":1},"dedup":[[1,"a"]]})",
       }) {
    auto out = DecodeSnapshot(bad);
    ASSERT_FALSE(out.ok()) << bad;
    EXPECT_EQ(out.status().code(), StatusCode::kDataLoss) << bad;
    EXPECT_NE(out.status().message().find("not a table snapshot"), std::string::npos);
  }
}

TEST(SnapshotStoreTest, CaptureThenApplyMovesCursorAndDedupToAnotherStore) {
  testsupport::TempDir a_dir("snap-a");
  testsupport::TempDir b_dir("snap-b");
  auto a = Open(a_dir);
  auto b = Open(b_dir);
  const auto id = Identity("inc");
  std::vector<state::DedupKey> keys;
  keys.reserve(6);
  for (int i = 0; i < 5; ++i) keys.push_back({1000, Hex(i), 1});
  keys.push_back({1001, Hex(9), 4});
  CommitState(*a, id, {1001, Hex(9), state::Phase::kStream}, keys);

  auto captured = CaptureSnapshot(*a, id);
  ASSERT_TRUE(captured.ok()) << captured.status().ToString();
  ASSERT_TRUE(captured->has_value());
  EXPECT_EQ((*captured)->dedup, keys);

  // Through the wire format, as a new owner receives it.
  auto decoded = DecodeSnapshot(EncodeSnapshot(**captured, 1 << 20));
  ASSERT_TRUE(decoded.ok());
  auto outcome = ApplySnapshot(*b, *decoded, id, kPolicy);
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  EXPECT_EQ(*outcome, RestoreOutcome::kApplied);
  auto cursor = b->LoadCursor(id);
  ASSERT_TRUE(cursor.ok() && cursor->has_value());
  EXPECT_EQ(**cursor, (state::Cursor{1001, Hex(9), state::Phase::kStream}));
  auto entries = b->DedupEntries(id);
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(*entries, keys);
}

TEST(SnapshotStoreTest, NothingCommittedCapturesNothing) {
  testsupport::TempDir dir("snap-empty");
  auto store = Open(dir);
  auto captured = CaptureSnapshot(*store, Identity("inc"));
  ASSERT_TRUE(captured.ok());
  EXPECT_FALSE(captured->has_value());
}

TEST(SnapshotStoreTest, ApplyReplacesAnOlderLocalStateAndItsStaleEntries) {
  testsupport::TempDir dir("snap-old");
  auto store = Open(dir);
  const auto id = Identity("inc");
  CommitState(*store, id, {900, Hex(1), state::Phase::kStream}, {{900, Hex(1), 1}});
  TableSnapshot newer = Sample(0);
  newer.cursor = {1000, Hex(3), state::Phase::kStream};
  newer.dedup = {{1000, Hex(2), 1}, {1000, Hex(3), 1}};
  auto outcome = ApplySnapshot(*store, newer, id, kPolicy);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(*outcome, RestoreOutcome::kApplied);
  auto entries = store->DedupEntries(id);
  ASSERT_TRUE(entries.ok());
  EXPECT_EQ(*entries, newer.dedup);  // the stale local entry is gone
}

TEST(SnapshotStoreTest, ALocalCursorPastTheSnapshotIsKept) {
  testsupport::TempDir dir("snap-newer");
  auto store = Open(dir);
  const auto id = Identity("inc");
  CommitState(*store, id, {2000, Hex(1), state::Phase::kStream}, {{2000, Hex(1), 1}});
  TableSnapshot older = Sample(3);
  older.cursor = {1500, Hex(9), state::Phase::kStream};
  auto outcome = ApplySnapshot(*store, older, id, kPolicy);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(*outcome, RestoreOutcome::kLocalNewer);
  auto cursor = store->LoadCursor(id);
  ASSERT_TRUE(cursor.ok() && cursor->has_value());
  EXPECT_EQ((*cursor)->ts, 2000);
}

TEST(SnapshotStoreTest, ASnapshotOfAnotherConfigurationIsIgnored) {
  testsupport::TempDir dir("snap-identity");
  auto store = Open(dir);
  TableSnapshot other = Sample(3);
  other.identity = Identity("inc", "another-query");
  auto outcome = ApplySnapshot(*store, other, Identity("inc"), kPolicy);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(*outcome, RestoreOutcome::kIdentityMismatch);
  auto cursor = store->LoadCursor(Identity("inc"));
  ASSERT_TRUE(cursor.ok());
  EXPECT_FALSE(cursor->has_value());
}

// The real store, except that after `writes_left` writes it "crashes": that write and every
// later one do nothing and fail, like a process killed at that point (what reached RocksDB
// before stays, nothing after does).
class CrashingStore : public testsupport::ForwardingStateStore {
 public:
  CrashingStore(state::StateStore* real, int writes_left)
      : ForwardingStateStore(real), left_(writes_left) {}
  int writes() const { return writes_; }

  Status ResetTable(std::string_view table) override {
    SNOWCAR_RETURN_IF_ERROR(Write());
    return ForwardingStateStore::ResetTable(table);
  }
  Result<std::vector<state::DedupKey>> DedupEntries(const state::CursorIdentity& id) override {
    return real()->DedupEntries(id);
  }
  Status ReplaceTable(const state::CursorIdentity& id, const state::Cursor& cursor,
                      const std::vector<state::DedupKey>& entries,
                      const state::DedupPolicy& policy) override {
    SNOWCAR_RETURN_IF_ERROR(Write());
    return real()->ReplaceTable(id, cursor, entries, policy);
  }
  Status Commit(const state::CursorIdentity& id, const state::Cursor& cursor,
                state::DedupWindow& window) override {
    SNOWCAR_RETURN_IF_ERROR(Write());
    return ForwardingStateStore::Commit(id, cursor, window);
  }
  Status PutCorrelation(std::string_view table, std::string_view field, std::string_view value,
                        std::string_view sys_id) override {
    SNOWCAR_RETURN_IF_ERROR(Write());
    return ForwardingStateStore::PutCorrelation(table, field, value, sys_id);
  }
  Status EraseCorrelation(std::string_view table, std::string_view field,
                          std::string_view value) override {
    SNOWCAR_RETURN_IF_ERROR(Write());
    return ForwardingStateStore::EraseCorrelation(table, field, value);
  }

 private:
  Status Write() {
    ++writes_;
    if (left_ <= 0) return Status::Unavailable("crashed before this write");
    --left_;
    return Status::Ok();
  }
  int left_;
  int writes_ = 0;
};

// A handoff restore killed after any number of its writes leaves the table either as it was
// or as the snapshot says, never without a cursor (which would read the whole table again).
TEST(SnapshotStoreTest, ACrashDuringApplyLeavesTheOldStateOrTheNewNeverNone) {
  const auto id = Identity("inc");
  TableSnapshot newer = Sample(0);
  newer.cursor = {1000, Hex(3), state::Phase::kStream};
  newer.dedup = {{1000, Hex(2), 1}, {1000, Hex(3), 1}};
  for (int survive = 0; survive <= 3; ++survive) {
    SCOPED_TRACE("crash after " + std::to_string(survive) + " writes");
    testsupport::TempDir dir("snap-crash");
    auto store = Open(dir);
    CommitState(*store, id, {900, Hex(1), state::Phase::kStream}, {{900, Hex(1), 1}});
    CrashingStore crashing(store.get(), survive);
    auto outcome = ApplySnapshot(crashing, newer, id, kPolicy);
    auto cursor = store->LoadCursor(id);
    ASSERT_TRUE(cursor.ok());
    ASSERT_TRUE(cursor->has_value()) << "the table lost its cursor";
    auto entries = store->DedupEntries(id);
    ASSERT_TRUE(entries.ok());
    if ((*cursor)->ts == 900) {
      EXPECT_FALSE(outcome.ok());
      EXPECT_EQ(*entries, (std::vector<state::DedupKey>{{900, Hex(1), 1}}));
    } else {
      EXPECT_TRUE(outcome.ok()) << outcome.status().ToString();
      EXPECT_EQ(**cursor, newer.cursor);
      EXPECT_EQ(*entries, newer.dedup);
    }
    if (survive > 0) {
      EXPECT_EQ(crashing.writes(), 1) << "a restore is one write";
    }
  }
}

}  // namespace
}  // namespace snowcar::source

namespace snowcar::source {
namespace {

TableSettings DeletesTable() {
  TableSettings t;
  t.alias = "inc";
  t.name = "incident";
  t.topic = "t";
  t.deletes = DeleteCapture::kAuditReconcile;
  return t;
}

TEST(SnapshotDeletesTest, TheDeletesCursorAndTheSweepMoveWithTheTable) {
  SourceSettings source;
  source.instance = "acme.service-now.com";
  const TableSettings table = DeletesTable();
  const state::CursorIdentity deletes_id = IdentityFor(source, AuditTableSettings(table));
  testsupport::TempDir from_dir;
  auto from = Open(from_dir);
  CommitState(*from, deletes_id, {1700000200, Hex(9), state::Phase::kStream},
              {{1700000199, Hex(8), 0}, {1700000200, Hex(9), 0}});
  ASSERT_TRUE(from->PutSweepState(source.instance, "inc", "{\"after\":\"x\"}").ok());

  TableSnapshot snapshot = Sample(3);
  ASSERT_TRUE(CaptureDeletesState(*from, source, table, snapshot).ok());
  ASSERT_TRUE(snapshot.deletes.has_value());
  EXPECT_EQ(snapshot.deletes->cursor.sys_id, Hex(9));
  EXPECT_EQ(snapshot.sweep.value_or(""), "{\"after\":\"x\"}");

  auto decoded = DecodeSnapshot(EncodeSnapshot(snapshot, 1 << 20));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(decoded->SameState(snapshot));

  testsupport::TempDir to_dir;
  auto to = Open(to_dir);
  ASSERT_TRUE(ApplyDeletesState(*to, source, table, *decoded, kPolicy).ok());
  auto cursor = to->LoadCursor(deletes_id);
  ASSERT_TRUE(cursor.ok() && cursor->has_value());
  EXPECT_EQ((*cursor)->sys_id, Hex(9));
  EXPECT_EQ(to->DedupEntries(deletes_id)->size(), 2u);
  EXPECT_EQ(to->GetSweepState(source.instance, "inc")->value_or(""), "{\"after\":\"x\"}");

  // A snapshot written before these members existed still reads, without them.
  TableSnapshot old = Sample(2);
  auto plain = DecodeSnapshot(EncodeSnapshot(old, 1 << 20));
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->deletes.has_value());
  EXPECT_FALSE(plain->sweep.has_value());
}

}  // namespace
}  // namespace snowcar::source
