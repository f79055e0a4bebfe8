// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "snowcar/state/state_store.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class DedupCommitTest : public testsupport::StateStoreTest {};

std::unique_ptr<DedupWindow> Load(StateStore& store, const std::string& table, DedupPolicy policy) {
  auto w = store.LoadDedupWindow(testsupport::StateIdentity(table), policy);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return w.ok() ? std::move(w).value() : nullptr;
}

TEST_F(DedupCommitTest, CommittedEntriesAreDuplicatesAfterReopen) {
  TempDir tmp;
  const DedupPolicy policy{2, 1000};
  {
    auto store = OpenOrDie(tmp.path());
    auto w = Load(*store, "incident", policy);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(w->Insert({100, HexId(i), 1}));
    ASSERT_TRUE(store->Commit(Identity("incident"), {100, HexId(9), Phase::kStream}, *w).ok());
    EXPECT_EQ(w->pending(), 0u);
  }
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", policy);
  EXPECT_EQ(w->size(), 10u);
  EXPECT_EQ(w->pending(), 0u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(w->Contains({100, HexId(i), 1}));
    EXPECT_FALSE(w->Insert({100, HexId(i), 1})) << i;
  }
  EXPECT_TRUE(w->Insert({100, HexId(3), 2}));  // a newer version of the row is new
}

TEST_F(DedupCommitTest, PendingEntriesAreNotVisibleAfterReopenWithoutCommit) {
  TempDir tmp;
  const DedupPolicy policy{2, 1000};
  {
    auto store = OpenOrDie(tmp.path());
    auto w = Load(*store, "incident", policy);
    ASSERT_TRUE(w->Insert({100, HexId(1), 0}));
    ASSERT_TRUE(store->Commit(Identity("incident"), {100, HexId(1), Phase::kStream}, *w).ok());
    ASSERT_TRUE(w->Insert({101, HexId(2), 0}));  // emitted, never committed
  }
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(*store->DedupCount("incident"), 1u);
  auto w = Load(*store, "incident", policy);
  EXPECT_TRUE(w->Contains({100, HexId(1), 0}));
  EXPECT_FALSE(w->Contains({101, HexId(2), 0}));
  EXPECT_EQ((*store->LoadCursor(Identity("incident")))->ts, 100);
}

TEST_F(DedupCommitTest, CommitPrunesBelowCursorMinusOverlap) {
  TempDir tmp;
  const DedupPolicy policy{2, 1000};
  {
    auto store = OpenOrDie(tmp.path());
    auto w = Load(*store, "incident", policy);
    for (int64_t ts = 100; ts <= 110; ++ts) {
      ASSERT_TRUE(w->Insert({ts, HexId(ts), 0}));
      ASSERT_TRUE(w->Insert({ts, "odd-" + std::to_string(ts), 0}));
    }
    ASSERT_TRUE(store->Commit(Identity("incident"), {105, "", Phase::kBackfill}, *w).ok());
    // Bound 103: ts 100..102 are gone (including pending ones never written).
    EXPECT_EQ(w->size(), 16u);
    EXPECT_EQ(*store->DedupCount("incident"), 16u);
    ASSERT_TRUE(store->Commit(Identity("incident"), {110, HexId(110), Phase::kStream}, *w).ok());
    EXPECT_EQ(w->size(), 6u);  // ts 108, 109, 110
    EXPECT_FALSE(w->Contains({107, HexId(107), 0}));
    EXPECT_TRUE(w->Contains({108, HexId(108), 0}));
    EXPECT_EQ(*store->DedupCount("incident"), 6u);
  }
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", policy);
  EXPECT_EQ(w->size(), 6u);
  for (int64_t ts = 108; ts <= 110; ++ts) {
    EXPECT_TRUE(w->Contains({ts, HexId(ts), 0}));
    EXPECT_TRUE(w->Contains({ts, "odd-" + std::to_string(ts), 0}));
  }
}

TEST_F(DedupCommitTest, LargePruneStaysExact) {
  TempDir tmp;
  const DedupPolicy policy{2, 100000};
  {
    auto store = OpenOrDie(tmp.path());
    auto w = Load(*store, "incident", policy);
    for (int64_t ts = 100; ts < 200; ++ts) {
      for (int r = 0; r < 3; ++r) ASSERT_TRUE(w->Insert({ts, HexId(ts * 10 + r), 0}));
    }
    ASSERT_TRUE(store->Commit(Identity("incident"), {99, "", Phase::kBackfill}, *w).ok());
    EXPECT_EQ(*store->DedupCount("incident"), 300u);
    // Bound 148: 144 entries go at once (more than are deleted one by one).
    ASSERT_TRUE(store->Commit(Identity("incident"), {150, "", Phase::kBackfill}, *w).ok());
    EXPECT_EQ(w->size(), 156u);
    EXPECT_EQ(*store->DedupCount("incident"), 156u);
    // And once more, so a second range follows the first.
    ASSERT_TRUE(store->Commit(Identity("incident"), {190, "", Phase::kBackfill}, *w).ok());
    EXPECT_EQ(*store->DedupCount("incident"), 36u);
  }
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", policy);
  EXPECT_EQ(w->size(), 36u);
  for (int64_t ts = 100; ts < 200; ++ts) {
    EXPECT_EQ(w->Contains({ts, HexId(ts * 10), 0}), ts >= 188) << ts;
  }
}

TEST_F(DedupCommitTest, CapEvictingManyAtOnceStaysExact) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", DedupPolicy{1 << 30, 100});
  // Three rows a second, ids descending inside a second so key order differs from emit order;
  // 100 is not a multiple of 3, so the oldest kept second is partly evicted. The second batch
  // evicts all 100 committed entries at once (a range delete plus point deletes).
  for (int64_t ts = 1000; ts < 1100; ++ts) {
    for (int r = 2; r >= 0; --r) ASSERT_TRUE(w->Insert({ts, HexId(ts * 10 + r), 0}));
  }
  ASSERT_TRUE(store->Commit(Identity("incident"), {1099, "", Phase::kStream}, *w).ok());
  ASSERT_TRUE(store->Commit(Identity("incident"), {1099, "", Phase::kStream}, *w).ok());
  for (int64_t ts = 1100; ts < 1200; ++ts) {
    for (int r = 2; r >= 0; --r) ASSERT_TRUE(w->Insert({ts, HexId(ts * 10 + r), 0}));
  }
  ASSERT_TRUE(store->Commit(Identity("incident"), {1199, "", Phase::kStream}, *w).ok());
  EXPECT_EQ(*store->DedupCount("incident"), 100u);
  auto reloaded = Load(*store, "incident", DedupPolicy{1 << 30, 1000});
  EXPECT_EQ(reloaded->size(), 100u);
  // The newest 100 in emit order: all of seconds 1167..1199 (99) and 1166's last emitted.
  for (int64_t ts = 1160; ts < 1200; ++ts) {
    for (int r = 0; r < 3; ++r) {
      const bool kept = ts > 1166 || (ts == 1166 && r == 0);
      EXPECT_EQ(reloaded->Contains({ts, HexId(ts * 10 + r), 0}), kept) << ts << "/" << r;
    }
  }
}

TEST_F(DedupCommitTest, OutOfOrderRowsArePrunedExactly) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", DedupPolicy{0, 1000});
  for (int64_t ts = 200; ts < 300; ++ts) ASSERT_TRUE(w->Insert({ts, HexId(ts), 0}));
  ASSERT_TRUE(store->Commit(Identity("incident"), {100, "", Phase::kBackfill}, *w).ok());
  for (int64_t ts = 100; ts < 200; ++ts) ASSERT_TRUE(w->Insert({ts, HexId(ts), 0}));
  ASSERT_TRUE(store->Commit(Identity("incident"), {100, "", Phase::kBackfill}, *w).ok());
  EXPECT_EQ(*store->DedupCount("incident"), 200u);
  for (int64_t ts = 50; ts < 80; ++ts) ASSERT_TRUE(w->Insert({ts, HexId(ts), 0}));  // pending
  ASSERT_TRUE(store->Commit(Identity("incident"), {250, "", Phase::kBackfill}, *w).ok());
  EXPECT_EQ(w->size(), 50u);
  EXPECT_EQ(*store->DedupCount("incident"), 50u);
  auto reloaded = Load(*store, "incident", DedupPolicy{0, 1000});
  for (int64_t ts = 50; ts < 300; ++ts)
    EXPECT_EQ(reloaded->Contains({ts, HexId(ts), 0}), ts >= 250);
}

TEST_F(DedupCommitTest, CapHoldsInMemoryAndOnDiskAfterReopen) {
  TempDir tmp;
  const DedupPolicy policy{1000, 10};  // overlap large: only the cap prunes here
  {
    auto store = OpenOrDie(tmp.path());
    auto w = Load(*store, "incident", policy);
    for (int i = 0; i < 25; ++i) {
      ASSERT_TRUE(w->Insert({1000 + i, HexId(i), 0}));
      EXPECT_LE(w->size(), 10u);
      if (i % 4 == 3) {
        ASSERT_TRUE(
            store->Commit(Identity("incident"), {1000 + i, HexId(i), Phase::kStream}, *w).ok());
        EXPECT_EQ(*store->DedupCount("incident"), w->size());
      }
    }
    ASSERT_TRUE(store->Commit(Identity("incident"), {1024, HexId(24), Phase::kStream}, *w).ok());
    EXPECT_EQ(w->size(), 10u);
    EXPECT_EQ(*store->DedupCount("incident"), 10u);
  }
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", policy);
  EXPECT_EQ(w->size(), 10u);
  for (int i = 0; i < 25; ++i) EXPECT_EQ(w->Contains({1000 + i, HexId(i), 0}), i >= 15) << i;
}

TEST_F(DedupCommitTest, SmallerWindowAtLoadShrinksDiskOnNextCommit) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  {
    auto w = Load(*store, "incident", DedupPolicy{1000, 100});
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(w->Insert({1000 + i, HexId(i), 0}));
    ASSERT_TRUE(store->Commit(Identity("incident"), {1019, HexId(19), Phase::kStream}, *w).ok());
  }
  auto w = Load(*store, "incident", DedupPolicy{1000, 5});
  EXPECT_EQ(w->size(), 5u);
  EXPECT_TRUE(w->Contains({1019, HexId(19), 0}));
  EXPECT_FALSE(w->Contains({1014, HexId(14), 0}));
  ASSERT_TRUE(store->Commit(Identity("incident"), {1019, HexId(19), Phase::kStream}, *w).ok());
  EXPECT_EQ(*store->DedupCount("incident"), 5u);
}

TEST_F(DedupCommitTest, EvictedThenEmittedAgainStaysOnDisk) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", DedupPolicy{1000, 2});
  ASSERT_TRUE(w->Insert({1, HexId(1), 0}));
  ASSERT_TRUE(w->Insert({2, HexId(2), 0}));
  ASSERT_TRUE(store->Commit(Identity("incident"), {2, HexId(2), Phase::kStream}, *w).ok());
  ASSERT_TRUE(w->Insert({3, HexId(3), 0}));  // evicts ts 1 (committed)
  ASSERT_TRUE(w->Insert({4, HexId(4), 0}));  // evicts ts 2 (committed)
  ASSERT_TRUE(w->Insert({1, HexId(1), 0}));  // ts 1 again: evicts pending ts 3
  ASSERT_TRUE(store->Commit(Identity("incident"), {4, HexId(4), Phase::kStream}, *w).ok());
  auto on_disk = Load(*store, "incident", DedupPolicy{1000, 100});
  EXPECT_EQ(on_disk->size(), 2u);
  EXPECT_TRUE(on_disk->Contains({1, HexId(1), 0}));
  EXPECT_TRUE(on_disk->Contains({4, HexId(4), 0}));
}

TEST_F(DedupCommitTest, EntriesForOneSysIdOldestFirst) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto w = Load(*store, "incident", DedupPolicy{1000, 100});
  ASSERT_TRUE(w->Insert({105, HexId(1), 3}));
  ASSERT_TRUE(w->Insert({100, HexId(1), 1}));
  ASSERT_TRUE(w->Insert({100, HexId(2), 1}));
  ASSERT_TRUE(w->Insert({100, HexId(1), 2}));
  ASSERT_TRUE(store->Commit(Identity("incident"), {105, HexId(1), Phase::kStream}, *w).ok());
  auto entries = store->DedupEntriesFor("incident", HexId(1));
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0], (DedupKey{100, HexId(1), 1}));
  EXPECT_EQ((*entries)[1], (DedupKey{100, HexId(1), 2}));
  EXPECT_EQ((*entries)[2], (DedupKey{105, HexId(1), 3}));
  EXPECT_TRUE(store->DedupEntriesFor("incident", HexId(9))->empty());
  EXPECT_TRUE(store->DedupEntriesFor("problem", HexId(1))->empty());
}

TEST_F(DedupCommitTest, TablesWithSharedNamePrefixesStayApart) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto a = Load(*store, "inc", DedupPolicy{2, 100});
  auto b = Load(*store, "incident", DedupPolicy{2, 100});
  ASSERT_TRUE(a->Insert({10, HexId(1), 0}));
  ASSERT_TRUE(b->Insert({10, HexId(1), 0}));
  ASSERT_TRUE(store->Commit(Identity("incident"), {10, HexId(1), Phase::kStream}, *b).ok());
  // Pruning "inc" far into the future must not touch "incident".
  ASSERT_TRUE(store->Commit(Identity("inc"), {1000, "", Phase::kStream}, *a).ok());
  EXPECT_EQ(*store->DedupCount("inc"), 0u);
  EXPECT_EQ(*store->DedupCount("incident"), 1u);
}

TEST_F(DedupCommitTest, CommitRefusesAWindowOfAnotherTableOrStore) {
  TempDir tmp, tmp2;
  auto store = OpenOrDie(tmp.path());
  auto other_store = OpenOrDie(tmp2.path());
  auto w = Load(*store, "incident", DedupPolicy{});
  ASSERT_TRUE(w->Insert({10, HexId(1), 0}));
  Status s = store->Commit(Identity("problem"), {10, "", Phase::kStream}, *w);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("incident"), std::string::npos);
  s = other_store->Commit(Identity("incident"), {10, "", Phase::kStream}, *w);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(w->pending(), 1u);  // a refused commit leaves the entries pending
  EXPECT_FALSE(store->LoadCursor(Identity("problem"))->has_value());
}

}  // namespace
}  // namespace snowcar::state

namespace snowcar::state {
namespace {

// Random inserts (mostly in ts order, sometimes not) and commits at random points, for several
// window sizes; after every commit the disk must hold exactly what a simple model says, which
// exercises every pruning path (point deletes, ranges, evictions of the cut second).
TEST_F(DedupCommitTest, RandomUseKeepsDiskEqualToTheModel) {
  using Key = std::tuple<int64_t, std::string, uint32_t>;
  std::mt19937_64 rng(7);
  for (size_t cap : {5u, 150u}) {
    for (int64_t overlap : {2, 1000}) {
      for (bool disorder : {false, true}) {
        SCOPED_TRACE("cap " + std::to_string(cap) + " overlap " + std::to_string(overlap) +
                     (disorder ? " with rows out of order" : ""));
        TempDir tmp;
        auto store = OpenOrDie(tmp.path());
        auto w = store->LoadDedupWindow(Identity("t"), DedupPolicy{overlap, cap});
        ASSERT_TRUE(w.ok());
        std::deque<Key> model;  // emit order
        // Whether the window saw its entries in ts order since its last sort (its pruning
        // differs: an out-of-order window prunes only once a quarter of it is below the bound).
        bool ordered = true;
        std::optional<int64_t> last_ts;
        int64_t ts = 1000;
        for (int step = 0; step < 3000; ++step) {
          if (rng() % 3 == 0) ++ts;
          const int64_t kts =
              disorder && rng() % 25 == 0 ? ts - static_cast<int64_t>(rng() % 6) : ts;
          std::string id = rng() % 8 == 0 ? "x" + std::to_string(rng() % 30) : HexId(rng() % 500);
          Key k{kts, id, static_cast<uint32_t>(rng() % 2)};
          const bool present = std::find(model.begin(), model.end(), k) != model.end();
          ASSERT_EQ((*w)->Insert({kts, id, std::get<2>(k)}), !present);
          if (!present) {
            if (model.size() == cap) model.pop_front();
            model.push_back(k);
            if (last_ts && kts < *last_ts) ordered = false;
            last_ts = kts;
          }
          // Phases of frequent and of rare commits: few or many deletions per commit.
          static constexpr uint64_t kMeanGap[] = {8, 100, 300};
          if (rng() % kMeanGap[(step / 250) % 3] == 0) {
            const int64_t cursor = ts - static_cast<int64_t>(rng() % 3);
            ASSERT_TRUE(store->Commit(Identity("t"), {cursor, "", Phase::kStream}, **w).ok());
            const int64_t bound = cursor - overlap;
            const auto below = static_cast<size_t>(std::count_if(
                model.begin(), model.end(), [&](const Key& m) { return std::get<0>(m) < bound; }));
            if (ordered || (below > 0 && below * 4 >= model.size())) {
              std::deque<Key> kept;
              for (const Key& m : model) {
                if (std::get<0>(m) >= bound) kept.push_back(m);
              }
              if (!ordered) {
                std::stable_sort(kept.begin(), kept.end(), [](const Key& a, const Key& b) {
                  return std::get<0>(a) < std::get<0>(b);
                });
                ordered = true;
                last_ts.reset();
                if (!kept.empty()) last_ts = std::get<0>(kept.back());
              }
              model = std::move(kept);
              if (model.empty()) last_ts.reset();
            }
            if (model.empty()) {
              ordered = true;
              last_ts.reset();
            }
            ASSERT_EQ((*w)->size(), model.size());
            auto disk = store->LoadDedupWindow(Identity("t"), DedupPolicy{overlap, 1u << 20});
            ASSERT_TRUE(disk.ok());
            ASSERT_EQ((*disk)->size(), model.size()) << "step " << step;
            for (const Key& m : model) {
              ASSERT_TRUE((*disk)->Contains({std::get<0>(m), std::get<1>(m), std::get<2>(m)}))
                  << "step " << step;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace snowcar::state
