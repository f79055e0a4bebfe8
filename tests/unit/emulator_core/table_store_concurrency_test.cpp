// SPDX-License-Identifier: Apache-2.0
// Concurrent readers and writers: pages stay ordered and the index stays exact.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/table_store.h"
#include "test_clock.h"

namespace snowcar::emulator {
namespace {

TEST(TableStoreConcurrency, ReadersAndWritersDoNotCorruptTheIndex) {
  testing::TestClock clock(testing::kBaseTime);
  TableStore store(clock);
  GenOptions o;
  o.rows = 3000;
  o.span_seconds = 600;
  ASSERT_TRUE(Populate(store, "incident", o).ok());

  std::atomic<bool> failed{false};
  std::atomic<int> writers_left{2};
  auto writer = [&](int seed) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    std::vector<std::string> mine;
    for (int i = 0; i < 3000; ++i) {
      const unsigned op = rng() % 10;
      if (op < 3 || mine.empty()) {
        WriteOptions w;
        w.backdate_seconds = rng() % 4 == 0 ? static_cast<int64_t>(rng() % 300) : 0;
        auto r = store.Insert("incident", {{"short_description", "w" + std::to_string(i)}}, w);
        if (!r.ok()) failed = true;
        if (r.ok()) mine.emplace_back(r->row->sys_id());
      } else if (op < 8) {
        auto r = store.Update(
            "incident", mine[rng() % mine.size()],
            {{"priority", std::to_string(1 + rng() % 5)}, {"description", std::to_string(i)}});
        if (!r.ok()) failed = true;
      } else {
        const size_t k = rng() % mine.size();
        if (!store.Delete("incident", mine[k]).ok()) failed = true;
        mine.erase(mine.begin() + static_cast<std::ptrdiff_t>(k));
      }
      if (i % 50 == 0) clock.Advance(1);
    }
    --writers_left;
  };
  auto reader = [&] {
    // Walk the table by keyset until the writers are done; every page must be in order.
    while (writers_left.load() > 0 && !failed) {
      std::string ts = "1970-01-01 00:00:00", id;
      for (int pages = 0; pages < 200; ++pages) {
        ListRequest req;
        req.limit = 100;
        // NOLINTBEGIN(performance-inefficient-string-concatenation): one query per page read; its
        // cost is noise beside the page
        req.query = ParseEncodedQuery(
            "sys_updated_on>" + ts + "^ORDERBYsys_updated_on^ORDERBYsys_id^NQsys_updated_on=" + ts +
            "^sys_id>" + id + "^ORDERBYsys_updated_on^ORDERBYsys_id");
        // NOLINTEND(performance-inefficient-string-concatenation)
        auto page = store.List("incident", req);
        if (!page.ok() || !page->used_index || page->rows.size() > page->total) {
          failed = true;
          return;
        }
        for (const RowPtr& r : page->rows) {
          const std::string rts(r->sys_updated_on()), rid(r->sys_id());
          if (rts < ts || (rts == ts && rid <= id)) {
            failed = true;
            return;
          }
          ts = rts;
          id = rid;
        }
        if (page->rows.size() < req.limit) break;
      }
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(writer, 1);
  threads.emplace_back(writer, 2);
  threads.emplace_back(reader);
  threads.emplace_back(reader);
  for (auto& t : threads) t.join();
  ASSERT_FALSE(failed.load());

  // Quiescent: the index walk gives every row exactly once, in order, like a scan + sort.
  ListRequest all;
  all.limit = 1000000;
  all.query = ParseEncodedQuery("ORDERBYsys_updated_on^ORDERBYsys_id");
  auto page = store.List("incident", all);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->rows.size(), store.Count("incident"));
  ASSERT_EQ(page->total, store.Count("incident"));
  auto snap = store.Snapshot("incident");
  std::vector<std::pair<std::string, std::string>> keys;
  for (const RowPtr& r : *snap) keys.emplace_back(r->sys_updated_on(), r->sys_id());
  std::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(page->rows[i]->sys_updated_on(), keys[i].first);
    ASSERT_EQ(page->rows[i]->sys_id(), keys[i].second);
    // The indexed row is the current version of the record.
    auto current = store.Get("incident", keys[i].second);
    ASSERT_TRUE(current.ok());
    ASSERT_EQ(current->get(), page->rows[i].get());
  }
}

}  // namespace
}  // namespace snowcar::emulator
