// SPDX-License-Identifier: Apache-2.0
// TableStore::List: the keyset index path against scan + sort, paging, projection, ACL.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/table_store.h"
#include "test_clock.h"

namespace snowcar::emulator {
namespace {

class ListTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GenOptions o;
    o.seed = 5;
    o.rows = 4000;
    o.span_seconds = 1800;  // ~2 rows per second on average, many sharing one
    o.rows_per_second = 5;
    ASSERT_TRUE(Populate(store_, "incident", o).ok());
    auto snap = store_.Snapshot("incident");
    ASSERT_TRUE(snap.ok());
    for (const RowPtr& r : *snap) {
      stamps_.emplace_back(r->sys_updated_on());
      ids_.emplace_back(r->sys_id());
    }
    std::sort(stamps_.begin(), stamps_.end());
  }

  // What scan + stable sort gives, computed here from a snapshot.
  std::vector<std::string> Expected(const std::string& text, size_t offset, size_t limit,
                                    size_t* total) {
    auto schema = store_.Schema("incident");
    CompiledQuery q(ParseEncodedQuery(text), *schema);
    auto snap = store_.Snapshot("incident");
    std::vector<RowPtr> m;
    for (const RowPtr& r : *snap) {
      if (q.Matches(*r)) m.push_back(r);
    }
    std::stable_sort(m.begin(), m.end(),
                     [&](const RowPtr& a, const RowPtr& b) { return q.OrderLess(*a, *b); });
    *total = m.size();
    std::vector<std::string> ids;
    for (size_t i = offset; i < m.size() && i - offset < limit; ++i)
      ids.emplace_back(m[i]->sys_id());
    return ids;
  }

  ListPage Page(const std::string& text, size_t offset, size_t limit) {
    ListRequest req;
    req.query = ParseEncodedQuery(text);
    req.offset = offset;
    req.limit = limit;
    auto page = store_.List("incident", req);
    EXPECT_TRUE(page.ok());
    return *page;
  }

  static std::vector<std::string> Ids(const ListPage& p) {
    std::vector<std::string> ids;
    for (const RowPtr& r : p.rows) ids.emplace_back(r->sys_id());
    return ids;
  }

  testing::TestClock clock_{testing::kBaseTime};
  TableStore store_{clock_};
  std::vector<std::string> stamps_;
  std::vector<std::string> ids_;
};

TEST_F(ListTest, KeysetQueriesUseTheIndexAndMatchScanPlusSort) {
  std::mt19937 rng(99);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::string ts = "sys_updated_on";
  int index_hits = 0;
  for (int iter = 0; iter < 100; ++iter) {
    std::string a = stamps_[pick(stamps_.size())], b = stamps_[pick(stamps_.size())];
    if (a > b) std::swap(a, b);
    const std::string s = ids_[pick(ids_.size())];
    const std::string asc = "^ORDERBY" + ts + "^ORDERBYsys_id";
    const std::string desc = "^ORDERBYDESC" + ts + "^ORDERBYDESCsys_id";
    // NOLINTBEGIN(performance-inefficient-string-concatenation): a readable table of query
    // forms, built once per iteration; the temporaries do not matter in a test.
    std::vector<std::string> forms = {
        ts + ">" + a + "^" + ts + "<=" + b + asc,
        ts + "=" + a + "^sys_id>" + s + "^ORDERBYsys_id",
        ts + ">" + a + "^" + ts + "<" + b + asc + "^NQ" + ts + "=" + a + "^sys_id>" + s + asc,
        ts + ">=" + a + desc,
        ts + "BETWEEN" + a + "@" + b + asc,
        ts + "=" + a + "^sys_id<=" + s + desc,
        ts + "=" + a + "^sys_id=" + s + asc,
        ts + ">" + a + "^priority<3" + asc,             // residual filter
        ts + "<" + b + "^priority=1^ORstate=2" + desc,  // residual with ^OR
        ts + ">" + b + "^NQ" + ts + "<" + a + asc,      // disjoint branches
        ts + ">" + a + "^NQ" + ts + "<" + b + asc,      // overlapping branches
        ts + ">" + a + "^NQpriority=1" + asc,           // a branch without range
        "sys_id>" + s + asc,                            // sys_id without pinned ts
        asc.substr(1),                                  // no condition at all
        // sys_id order alone: the sys_id index (a reconciliation sweep's page)
        "sys_id>" + s + "^ORDERBYsys_id",
        "sys_id<=" + s + "^ORDERBYDESCsys_id",
        "sys_id>=" + s + "^priority<3^ORDERBYsys_id",         // residual filter
        "sys_id<" + s + "^NQsys_id>" + s + "^ORDERBYsys_id",  // two branches, s left out
        ts + ">" + a + "^ORDERBYsys_id",                      // ts filters, id orders
        "ORDERBYsys_id",
    };
    // NOLINTEND(performance-inefficient-string-concatenation)
    for (const std::string& text : forms) {
      SCOPED_TRACE(text);
      const size_t offset = pick(4) == 0 ? pick(300) : 0;
      const size_t limit = 1 + pick(pick(2) == 0 ? 50 : 2000);
      size_t total = 0;
      std::vector<std::string> want = Expected(text, offset, limit, &total);
      ListPage page = Page(text, offset, limit);
      ASSERT_TRUE(page.ignored.empty());
      ASSERT_TRUE(page.used_index);
      ASSERT_EQ(page.total, total);
      ASSERT_EQ(Ids(page), want);
      if (!want.empty()) ++index_hits;
    }
  }
  EXPECT_GT(index_hits, 500);
}

TEST_F(ListTest, NarrowTimeRangesWithOtherOrdersMatchScanPlusSort) {
  std::mt19937 rng(3);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::string ts = "sys_updated_on";
  int narrowed = 0;
  for (int iter = 0; iter < 150; ++iter) {
    const size_t i = pick(stamps_.size());
    const std::string a = stamps_[i];
    const std::string b = stamps_[std::min(stamps_.size() - 1, i + pick(600))];
    // NOLINTBEGIN(performance-inefficient-string-concatenation): a readable table of query
    // forms, built once per iteration; the temporaries do not matter in a test.
    const std::vector<std::string> forms = {
        ts + ">=" + a + "^" + ts + "<=" + b + "^ORDERBY" + ts,
        ts + ">" + a + "^" + ts + "<" + b + "^priority<3^ORDERBYDESCpriority^ORDERBYnumber",
        ts + "BETWEEN" + a + "@" + b,
        ts + "=" + a + "^NQ" + ts + "=" + b + "^ORDERBYDESC" + ts,
        ts + ">" + a + "^" + ts + "<" + b + "^NQ" + ts + "=" + b + "^ORstate=2",  // wide
    };
    // NOLINTEND(performance-inefficient-string-concatenation)
    for (const std::string& text : forms) {
      SCOPED_TRACE(text);
      size_t total = 0;
      std::vector<std::string> want = Expected(text, 0, 100000, &total);
      ListPage page = Page(text, 0, 100000);
      ASSERT_EQ(page.total, total);
      ASSERT_EQ(Ids(page), want);
      narrowed += page.used_index ? 1 : 0;
    }
  }
  EXPECT_GT(narrowed, 400);
}

// sys_idIN / sys_id= in every branch: rows by primary key (a reconciliation's confirming
// read), the same rows in the same order as scan + sort.
TEST_F(ListTest, RowsBySysIdMatchScanPlusSort) {
  std::mt19937 rng(17);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  for (int iter = 0; iter < 100; ++iter) {
    std::string list;
    for (size_t k = 0, n = 1 + pick(120); k < n; ++k) {
      list += (list.empty() ? "" : ",") +
              (pick(10) == 0 ? std::string(32, 'f') : ids_[pick(ids_.size())]);
    }
    const std::string one = ids_[pick(ids_.size())];
    // NOLINTBEGIN(performance-inefficient-string-concatenation): a readable table of query
    // forms, built once per iteration; the temporaries do not matter in a test.
    const std::vector<std::string> forms = {
        "sys_idIN" + list,
        "sys_idIN" + list + "^priority<3",
        "sys_idIN" + list + "^ORDERBYDESCpriority",
        "sys_id=" + one + "^NQsys_idIN" + list,
        "sys_idIN" + list + "^ORDERBYsys_id",
    };
    // NOLINTEND(performance-inefficient-string-concatenation)
    for (const std::string& text : forms) {
      SCOPED_TRACE(text);
      size_t total = 0;
      std::vector<std::string> want = Expected(text, 0, 100000, &total);
      ListPage page = Page(text, 0, 100000);
      ASSERT_TRUE(page.used_index);
      ASSERT_EQ(page.total, total);
      ASSERT_EQ(Ids(page), want);
    }
  }
}

TEST_F(ListTest, OtherOrdersFallBackToScan) {
  ListPage p = Page("priority=1^ORDERBYsys_updated_on", 0, 100);
  EXPECT_FALSE(p.used_index);
  size_t total = 0;
  EXPECT_EQ(Ids(p), Expected("priority=1^ORDERBYsys_updated_on", 0, 100, &total));
  EXPECT_EQ(p.total, total);
  EXPECT_FALSE(Page("sys_updated_on>2026-01-01 00:00:00", 0, 10).used_index);
}

TEST_F(ListTest, LimitOffsetAndTotal) {
  const std::string q = "ORDERBYnumber";
  ListPage all = Page(q, 0, 100000);
  ASSERT_EQ(all.rows.size(), 4000u);
  EXPECT_EQ(all.total, 4000u);
  EXPECT_EQ(all.rows[0]->Get(*all.schema->IndexOf("number")), "INC0010001");
  ListPage mid = Page(q, 3990, 25);
  ASSERT_EQ(mid.rows.size(), 10u);
  EXPECT_EQ(mid.total, 4000u);
  EXPECT_EQ(mid.rows[0]->sys_id(), all.rows[3990]->sys_id());
  ListPage past = Page(q, 5000, 25);
  EXPECT_TRUE(past.rows.empty());
  EXPECT_EQ(past.total, 4000u);
  EXPECT_TRUE(Page(q, 0, 0).rows.empty());
  ListRequest dflt;
  EXPECT_EQ(dflt.limit, 10000u);
}

TEST_F(ListTest, ProjectionDropsUnknownNamesAndKeepsOrder) {
  ListRequest req;
  req.fields = {"number", "nope", "sys_id", "number", "priority"};
  req.limit = 1;
  auto page = store_.List("incident", req);
  ASSERT_TRUE(page.ok());
  std::vector<std::string> names;
  for (size_t i : page->field_indices) names.push_back(page->schema->field(i).name);
  EXPECT_EQ(names, (std::vector<std::string>{"number", "sys_id", "priority"}));
  req.fields = {"nope"};
  page = store_.List("incident", req);
  EXPECT_EQ(page->field_indices.size(), page->schema->size());
}

TEST_F(ListTest, AclFiltersAfterLimitSoPagesComeBackShort) {
  ListRequest req;
  req.query = ParseEncodedQuery("ORDERBYsys_updated_on^ORDERBYsys_id");
  req.limit = 100;
  // Hide every row on the first page: the page is empty although 3900 more rows follow.
  ListPage full = Page("ORDERBYsys_updated_on^ORDERBYsys_id", 0, 100);
  std::set<std::string> hidden;
  for (const RowPtr& r : full.rows) hidden.emplace(r->sys_id());
  req.acl = [&](const Row& r) { return hidden.count(std::string(r.sys_id())) == 0; };
  auto page = store_.List("incident", req);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->rows.empty());
  EXPECT_EQ(page->acl_removed, 100u);
  EXPECT_EQ(page->total, 4000u);
  req.offset = 100;
  page = store_.List("incident", req);
  EXPECT_EQ(page->rows.size(), 100u);
  // Hide every other row: pages are short, yet walking them all still sees every visible row.
  req.acl = [](const Row& r) { return (r.sys_id().back() - '0') % 2 == 0; };
  size_t seen = 0, expected = 0;
  auto snap = store_.Snapshot("incident");
  for (const RowPtr& r : *snap) expected += req.acl(*r) ? 1 : 0;
  for (req.offset = 0; req.offset < 4000; req.offset += req.limit) {
    page = store_.List("incident", req);
    EXPECT_LE(page->rows.size(), 100u);
    seen += page->rows.size();
  }
  EXPECT_EQ(seen, expected);
}

TEST_F(ListTest, PagesAreSnapshotsUnaffectedByLaterWrites) {
  ListPage before = Page("ORDERBYsys_updated_on^ORDERBYsys_id", 0, 5);
  const std::string id(before.rows[0]->sys_id());
  const std::string desc(before.rows[0]->Get(*before.schema->IndexOf("short_description")));
  ASSERT_TRUE(store_.Update("incident", id, {{"short_description", "changed"}}).ok());
  ASSERT_TRUE(store_.Delete("incident", before.rows[1]->sys_id()).ok());
  EXPECT_EQ(before.rows[0]->Get(*before.schema->IndexOf("short_description")), desc);
  EXPECT_FALSE(before.rows[1]->sys_id().empty());
  // The updated row moved to the end of the index (sys_updated_on = now).
  ListPage last = Page("ORDERBYDESCsys_updated_on^ORDERBYDESCsys_id", 0, 1);
  EXPECT_EQ(last.rows[0]->sys_id(), id);
}

TEST_F(ListTest, MissingTable) {
  ListRequest req;
  EXPECT_EQ(store_.List("nope", req).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace snowcar::emulator
