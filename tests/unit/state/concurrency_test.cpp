// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "snowcar/state/state_store.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class ConcurrencyTest : public testsupport::StateStoreTest {};

// Several pollers commit their own tables while sink lanes use the correlation cache, all on
// one store at once. Afterwards every table holds exactly its own last cursor and window.
TEST_F(ConcurrencyTest, CommitsAndCorrelationFromManyThreads) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  constexpr int kTables = 4;
  constexpr int kCommits = 150;
  constexpr int kRowsPerCommit = 7;
  const DedupPolicy policy{3, 100};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(kTables);
  for (int t = 0; t < kTables; ++t) {
    threads.emplace_back([&, t] {
      const std::string table = "table_" + std::to_string(t);
      auto w = store->LoadDedupWindow(Identity(table), policy);
      if (!w.ok()) {
        ++failures;
        return;
      }
      for (int c = 1; c <= kCommits; ++c) {
        for (int r = 0; r < kRowsPerCommit; ++r) {
          if (!(*w)->Insert({c, HexId(t * 100000 + c * 100 + r), 0})) ++failures;
        }
        Status s = store->Commit(Identity(table), {c, "", Phase::kBackfill}, **w);
        if (!s.ok()) ++failures;
      }
    });
  }
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 400; ++i) {
        const std::string value = "ext-" + std::to_string(i);
        const std::string id = "lane" + std::to_string(t) + "-" + std::to_string(i);
        if (!store->PutCorrelation("incident", "u_lane" + std::to_string(t), value, id).ok()) {
          ++failures;
        }
        auto got = store->GetCorrelation("incident", "u_lane" + std::to_string(t), value);
        if (!got.ok() || got->value_or("") != id) ++failures;
        if (i % 3 == 0 &&
            !store->EraseCorrelation("incident", "u_lane" + std::to_string(t), value).ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);

  for (int t = 0; t < kTables; ++t) {
    const std::string table = "table_" + std::to_string(t);
    auto cursor = store->LoadCursor(Identity(table));
    ASSERT_TRUE(cursor.ok());
    EXPECT_EQ((*cursor)->ts, kCommits);
    // Bound = 150 - 3: seconds 147..150 remain, 7 rows each.
    auto w = store->LoadDedupWindow(Identity(table), policy);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ((*w)->size(), 4u * kRowsPerCommit) << table;
    for (int c = kCommits - 3; c <= kCommits; ++c) {
      for (int r = 0; r < kRowsPerCommit; ++r) {
        EXPECT_TRUE((*w)->Contains({c, HexId(t * 100000 + c * 100 + r), 0}));
      }
    }
  }
  for (int t = 0; t < 2; ++t) {
    for (int i = 0; i < 400; ++i) {
      auto got = store->GetCorrelation("incident", "u_lane" + std::to_string(t),
                                       "ext-" + std::to_string(i));
      ASSERT_TRUE(got.ok());
      if (i % 3 == 0) {
        EXPECT_FALSE(got->has_value());
      } else {
        EXPECT_EQ(got->value_or(""), "lane" + std::to_string(t) + "-" + std::to_string(i));
      }
    }
  }
}

}  // namespace
}  // namespace snowcar::state
