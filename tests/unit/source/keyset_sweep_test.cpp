// SPDX-License-Identifier: Apache-2.0
// The keyset queries run against the emulator's query engine and table store (no HTTP):
// a sweep that follows the reference's rules with these exact query strings reads every
// matching row once, in (timestamp, sys_id) order, even when one second holds several pages
// of rows, and with ^NQ branches in the base query.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "snowcar/common/time.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/testbed/emulator/emulator_clock.h"
#include "snowcar/testbed/emulator/query.h"
#include "snowcar/testbed/emulator/table_store.h"

namespace snowcar::source {
namespace {

struct Seen {
  int64_t ts;
  std::string sys_id;
  bool operator==(const Seen&) const = default;
  // NOLINTNEXTLINE(modernize-use-nullptr): false positive on a defaulted operator<=>.
  auto operator<=>(const Seen&) const = default;
};

class KeysetSweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    table_.alias = "inc";
    table_.name = "incident";
    // Seconds with 1, 7, 12 and 3 rows; ids deliberately not in insertion order.
    const int per_second[] = {1, 7, 12, 3};
    std::vector<emulator::Fields> rows;
    int n = 0;
    for (int s = 0; s < 4; ++s) {
      for (int i = 0; i < per_second[s]; ++i, ++n) {
        char id[33];
        std::snprintf(id, sizeof(id), "%08x%024d", (n * 2654435761u) & 0xffffffffu, n);
        rows.push_back({{"sys_id", id},
                        {"sys_updated_on", FormatSnowTimestamp(kBase + int64_t{s} * 10)},
                        {"active", n % 3 == 0 ? "false" : "true"},
                        {"priority", n % 4 == 0 ? "1" : "3"}});
      }
    }
    ASSERT_TRUE(store_.Load("incident", rows).ok());
  }

  std::vector<Seen> Page(const std::string& query, size_t limit) {
    emulator::ListRequest request;
    request.query = emulator::ParseEncodedQuery(query);
    EXPECT_TRUE(request.query.ignored.empty()) << "the engine ignored parts of " << query;
    request.limit = limit;
    request.count_total = false;
    auto page = store_.List("incident", request);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<Seen> out;
    if (!page.ok()) return out;
    for (const auto& row : page->rows) {
      out.push_back(
          {ParseSnowTimestamp(row->sys_updated_on()).value(), std::string(row->sys_id())});
    }
    return out;
  }

  // One sweep up to `hi`, by the reference's rules: move on; a full page switches to
  // draining the last row's second until a page comes back short. With `keyset`, a full page
  // is followed by the one keyset query instead (the rest of the second OR the seconds
  // after), and any short page ends the sweep. Fails on any row that is not strictly after
  // the position.
  std::vector<Seen> Sweep(size_t limit, int64_t hi, bool keyset = false) {
    std::vector<Seen> emitted;
    Seen pos{kBase - 1, ""};
    bool draining = false;
    for (int requests = 0; requests < 100; ++requests) {
      std::string query =
          draining ? DrainSecondQuery(table_, pos.ts, pos.sys_id) : MoveOnQuery(table_, pos.ts, hi);
      if (keyset && draining) query = KeysetQuery(table_, pos.ts, pos.sys_id, hi);
      const std::vector<Seen> page = Page(query, limit);
      for (const Seen& row : page) {
        EXPECT_TRUE(IsAfter(RowKey{row.ts, row.sys_id, 0}, pos.ts, pos.sys_id))
            << row.sys_id << " is not after " << pos.sys_id << " in " << query;
        emitted.push_back(row);
        pos = row;
      }
      if (page.size() >= limit) {
        draining = true;  // the rest of pos's second, then on
      } else if (draining && !keyset) {
        draining = false;  // pos's second is done; move on from it
      } else {
        return emitted;  // a short move-on page: caught up to hi
      }
    }
    ADD_FAILURE() << "the sweep did not end";
    return emitted;
  }

  std::vector<Seen> Expected(const std::function<bool(const emulator::Row&)>& match) {
    std::vector<Seen> out;
    const auto snapshot = store_.Snapshot("incident");
    EXPECT_TRUE(snapshot.ok());
    if (!snapshot.ok()) return out;
    for (const auto& row : *snapshot) {
      if (match(*row)) {
        out.push_back(
            {ParseSnowTimestamp(row->sys_updated_on()).value(), std::string(row->sys_id())});
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static constexpr int64_t kBase = 1706702400;  // 2024-01-31 12:00:00
  emulator::EmulatorClock clock_;
  emulator::TableStore store_{clock_};
  TableSettings table_;
};

TEST_F(KeysetSweepTest, EveryRowOnceInOrderWhateverThePageSize) {
  const auto all = Expected([](const emulator::Row&) { return true; });
  ASSERT_EQ(all.size(), 23u);
  for (size_t limit : {1u, 2u, 3u, 5u, 7u, 12u, 50u}) {
    EXPECT_EQ(Sweep(limit, kBase + 30), all) << "limit " << limit;
    EXPECT_EQ(Sweep(limit, kBase + 30, /*keyset=*/true), all) << "keyset, limit " << limit;
  }
}

TEST_F(KeysetSweepTest, HighWaterMarkIsInclusiveAndLaterSecondsWait) {
  const auto upto = Expected([](const emulator::Row& row) {
    return ParseSnowTimestamp(row.sys_updated_on()).value() <= kBase + 10;
  });
  ASSERT_EQ(upto.size(), 8u);
  EXPECT_EQ(Sweep(3, kBase + 10), upto);
  EXPECT_EQ(Sweep(3, kBase + 10, /*keyset=*/true), upto);
}

TEST_F(KeysetSweepTest, NewQueryBranchesAreEachBoundedByTheCursor) {
  table_.base_query = NormalizeBaseQuery("active=true ^NQ priority=1");
  const auto schema = store_.Schema("incident");
  ASSERT_NE(schema, nullptr);
  const size_t active = schema->IndexOf("active").value();
  const size_t priority = schema->IndexOf("priority").value();
  const auto expected = Expected([&](const emulator::Row& row) {
    return row.Get(active) == "true" || row.Get(priority) == "1";
  });
  ASSERT_GT(expected.size(), 10u);
  ASSERT_LT(expected.size(), 23u);
  for (size_t limit : {1u, 4u, 50u}) {
    EXPECT_EQ(Sweep(limit, kBase + 30), expected) << "limit " << limit;
    EXPECT_EQ(Sweep(limit, kBase + 30, /*keyset=*/true), expected) << "keyset, limit " << limit;
  }
}

}  // namespace
}  // namespace snowcar::source
