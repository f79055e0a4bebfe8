// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <random>
#include <set>
#include <tuple>

#include "state/dedup_window_impl.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class DedupWindowTest : public testsupport::StateStoreTest {};

DedupWindowImpl MakeWindow(size_t records, int64_t overlap = 2) {
  return DedupWindowImpl("acme.service-now.com", "incident", DedupPolicy{overlap, records},
                         nullptr);
}

TEST_F(DedupWindowTest, InsertOfADuplicateReturnsFalse) {
  auto w = MakeWindow(100);
  const DedupKey k{1000, HexId(1), 3};
  EXPECT_FALSE(w.Contains(k));
  EXPECT_TRUE(w.Insert(k));
  EXPECT_TRUE(w.Contains(k));
  EXPECT_FALSE(w.Insert(k));
  EXPECT_EQ(w.size(), 1u);
  EXPECT_EQ(w.pending(), 1u);
}

TEST_F(DedupWindowTest, EveryKeyPartMatters) {
  auto w = MakeWindow(100);
  ASSERT_TRUE(w.Insert({1000, HexId(1), 3}));
  EXPECT_TRUE(w.Insert({1000, HexId(1), 4}));  // the row changed again: emit it
  EXPECT_TRUE(w.Insert({1001, HexId(1), 3}));
  EXPECT_TRUE(w.Insert({1000, HexId(2), 3}));
  EXPECT_EQ(w.size(), 4u);
}

TEST_F(DedupWindowTest, NonHexIdsStayExact) {
  auto w = MakeWindow(100);
  const std::string lower = "0123456789abcdef0123456789abcdef";
  std::string upper = lower;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  ASSERT_TRUE(w.Insert({5, lower, 1}));
  EXPECT_FALSE(w.Contains({5, upper, 1}));  // different strings are different rows
  EXPECT_TRUE(w.Insert({5, upper, 1}));
  EXPECT_TRUE(w.Insert({5, lower.substr(1), 1}));
  EXPECT_TRUE(w.Insert({5, lower + "0", 1}));
  EXPECT_TRUE(w.Insert({5, "", 1}));
  EXPECT_TRUE(w.Insert({5, "not-a-sys-id", 1}));
  EXPECT_FALSE(w.Insert({5, "not-a-sys-id", 1}));
  EXPECT_TRUE(w.Insert({5, "not-a-sys-id", 2}));
  EXPECT_TRUE(w.Contains({5, upper, 1}));
  EXPECT_FALSE(w.Contains({5, "not-a-sys-iD", 1}));
  EXPECT_EQ(w.size(), 7u);
}

TEST_F(DedupWindowTest, StringViewOverloadsMatchTheKeyOverloads) {
  auto w = MakeWindow(10);
  const std::string id = HexId(9);
  EXPECT_TRUE(w.Insert(77, std::string_view(id), 2));
  EXPECT_TRUE(w.Contains(DedupKey{77, id, 2}));
  EXPECT_FALSE(w.Insert(DedupKey{77, id, 2}));
}

TEST_F(DedupWindowTest, CapDropsTheOldestFirst) {
  auto w = MakeWindow(3);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(w.Insert({100 + i, HexId(i), 0}));
  EXPECT_EQ(w.size(), 3u);
  EXPECT_FALSE(w.Contains({100, HexId(0), 0}));
  EXPECT_FALSE(w.Contains({101, HexId(1), 0}));
  for (int i = 2; i < 5; ++i) EXPECT_TRUE(w.Contains({100 + i, HexId(i), 0}));
  // Evicted while still pending: never reached the disk, so nothing to delete there.
  EXPECT_EQ(w.pending(), 3u);
  size_t evicted = 0;
  w.ForEachEvicted([&](int64_t, std::string_view, uint32_t) { ++evicted; });
  EXPECT_EQ(evicted, 0u);
}

TEST_F(DedupWindowTest, EvictedCommittedEntriesAreReportedForDeletion) {
  auto w = MakeWindow(2);
  ASSERT_TRUE(w.AddCommitted(1, "odd-id", 0));
  ASSERT_TRUE(w.AddCommitted(2, HexId(2), 0));
  ASSERT_TRUE(w.Insert({3, HexId(3), 0}));
  std::vector<std::string> evicted;
  w.ForEachEvicted([&](int64_t ts, std::string_view id, uint32_t) {
    evicted.push_back(std::to_string(ts) + ":" + std::string(id));
  });
  EXPECT_EQ(evicted, std::vector<std::string>{"1:odd-id"});
  w.OnCommitted(0);
  evicted.clear();
  w.ForEachEvicted([&](int64_t, std::string_view id, uint32_t) { evicted.emplace_back(id); });
  EXPECT_TRUE(evicted.empty());
  EXPECT_FALSE(w.Contains({1, "odd-id", 0}));
  EXPECT_EQ(w.pending(), 0u);
}

TEST_F(DedupWindowTest, ZeroRecordsKeepsNothing) {
  auto w = MakeWindow(0);
  EXPECT_TRUE(w.Insert({1, HexId(1), 0}));
  EXPECT_TRUE(w.Insert({1, HexId(1), 0}));
  EXPECT_EQ(w.size(), 0u);
}

TEST_F(DedupWindowTest, OnCommittedPrunesBelowTheBoundEvenOutOfOrder) {
  auto w = MakeWindow(100);
  ASSERT_TRUE(w.Insert({10, HexId(1), 0}));
  ASSERT_TRUE(w.Insert({5, HexId(2), 0}));  // out of ts order
  ASSERT_TRUE(w.Insert({12, "odd", 0}));
  ASSERT_TRUE(w.Insert({7, "odd", 1}));
  EXPECT_TRUE(w.HasEntryBelow(6));
  EXPECT_FALSE(w.HasEntryBelow(5));
  w.OnCommitted(8);
  EXPECT_EQ(w.size(), 2u);
  EXPECT_TRUE(w.Contains({10, HexId(1), 0}));
  EXPECT_TRUE(w.Contains({12, "odd", 0}));
  EXPECT_FALSE(w.Contains({5, HexId(2), 0}));
  EXPECT_FALSE(w.Contains({7, "odd", 1}));
  // A prune puts the window in timestamp order: the cap then evicts the oldest second.
  auto small = MakeWindow(3);
  ASSERT_TRUE(small.Insert({9, HexId(1), 0}));
  ASSERT_TRUE(small.Insert({3, HexId(2), 0}));
  ASSERT_TRUE(small.Insert({1, HexId(4), 0}));
  small.OnCommitted(2);  // prunes 1, sorts what stays: 3, 9
  ASSERT_TRUE(small.Insert({20, HexId(3), 0}));
  ASSERT_TRUE(small.Insert({21, HexId(5), 0}));  // evicts 3, the oldest, not 9 (first to arrive)
  EXPECT_FALSE(small.Contains({3, HexId(2), 0}));
  EXPECT_TRUE(small.Contains({9, HexId(1), 0}));
  EXPECT_TRUE(small.Contains({21, HexId(5), 0}));
}

// With nothing below the bound an out-of-order window is left as it is (a parallel backfill
// commits every 128 rows: sorting and re-indexing 50 000 entries each time cost more than the
// rows), and the cap keeps evicting in arrival order.
TEST_F(DedupWindowTest, OnCommittedWithNothingBelowTheBoundKeepsArrivalOrder) {
  auto w = MakeWindow(2);
  ASSERT_TRUE(w.Insert({9, HexId(1), 0}));
  ASSERT_TRUE(w.Insert({3, HexId(2), 0}));
  w.OnCommitted(0);
  EXPECT_EQ(w.size(), 2u);
  EXPECT_FALSE(w.ts_ordered());
  ASSERT_TRUE(w.Insert({20, HexId(3), 0}));
  EXPECT_FALSE(w.Contains({9, HexId(1), 0}));
  EXPECT_TRUE(w.Contains({3, HexId(2), 0}));
  EXPECT_TRUE(w.Contains({20, HexId(3), 0}));
  // INT64_MIN (the store's "pruning waits") is nothing below, whatever the window holds.
  w.OnCommitted(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(w.size(), 2u);
}

// A plain model (ordered set + FIFO list) driven with the same random operations; the window
// must agree with it on every answer, on its size, and on what it would write and delete.
TEST_F(DedupWindowTest, AgreesWithASimpleModelUnderRandomUse) {
  using Key = std::tuple<int64_t, std::string, uint32_t>;
  std::mt19937_64 rng(20261202);
  for (size_t cap : {1u, 7u, 64u, 300u}) {
    auto w = MakeWindow(cap);
    std::deque<std::pair<Key, bool>> model;  // key, committed
    std::vector<Key> model_evicted;
    int64_t ts = 1000;
    for (int step = 0; step < 20000; ++step) {
      const int op = static_cast<int>(rng() % 100);
      if (op < 80) {
        if (rng() % 4 == 0) ts += 1;
        const int64_t kts = (rng() % 20 == 0) ? ts - static_cast<int64_t>(rng() % 5) : ts;
        std::string id =
            (rng() % 10 == 0) ? "odd-" + std::to_string(rng() % 50) : HexId(rng() % 400);
        const auto mod = static_cast<uint32_t>(rng() % 3);
        Key k{kts, id, mod};
        const bool present =
            std::any_of(model.begin(), model.end(), [&](const auto& e) { return e.first == k; });
        ASSERT_EQ(w.Contains({kts, id, mod}), present) << "cap " << cap << " step " << step;
        ASSERT_EQ(w.Insert({kts, id, mod}), !present);
        if (!present) {
          if (model.size() == cap) {
            if (model.front().second) model_evicted.push_back(model.front().first);
            model.pop_front();
          }
          model.emplace_back(k, false);
        }
      } else if (op < 95) {
        std::set<Key> pending_model, pending_window, evicted_window;
        for (const auto& [k, committed] : model) {
          if (!committed) pending_model.insert(k);
        }
        w.ForEachPending([&](int64_t t, std::string_view id, uint32_t m) {
          pending_window.emplace(t, std::string(id), m);
        });
        w.ForEachEvicted([&](int64_t t, std::string_view id, uint32_t m) {
          evicted_window.emplace(t, std::string(id), m);
        });
        ASSERT_EQ(pending_window, pending_model);
        ASSERT_EQ(evicted_window, std::set<Key>(model_evicted.begin(), model_evicted.end()));
        const int64_t bound = ts - 3;
        w.OnCommitted(bound);
        std::deque<std::pair<Key, bool>> kept;
        bool pruned = false;
        for (auto& [k, committed] : model) {
          if (std::get<0>(k) >= bound) {
            kept.emplace_back(k, true);
          } else {
            pruned = true;
          }
        }
        // A prune leaves the window in ts order; without one, arrival order stays.
        if (pruned) {
          std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
            return std::get<0>(a.first) < std::get<0>(b.first);
          });
        }
        model = std::move(kept);
        model_evicted.clear();
      } else {
        // Ask about a key that was never inserted.
        ASSERT_FALSE(w.Contains({ts + 100, HexId(rng()), 0}));
        ASSERT_FALSE(w.Contains({ts, "never-" + std::to_string(rng() % 1000), 0}));
      }
      ASSERT_EQ(w.size(), model.size());
    }
  }
}

}  // namespace
}  // namespace snowcar::state
