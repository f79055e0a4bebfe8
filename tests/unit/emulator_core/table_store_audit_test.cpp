// SPDX-License-Identifier: Apache-2.0
// The audit trail of deletions: sys_audit and sys_audit_delete rows, the Table Cleaner, undelete,
// and keyset queries on sys_audit served from its by-tablename index.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "snowcar/testbed/emulator/table_store.h"
#include "test_clock.h"

namespace snowcar::emulator {
namespace {

using testing::kBaseTime;
using testing::TestClock;

std::string Get(const TableStore& store, const RowPtr& row, std::string_view table,
                std::string_view field) {
  return std::string(row->Get(*store.Schema(table)->IndexOf(field)));
}

class AuditTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.CreateTable("incident").ok());
    ASSERT_TRUE(store_.CreateTable("u_custom").ok());
    ASSERT_TRUE(store_.CreateTable("sys_user").ok());
  }

  std::string Add(std::string_view table, std::string description = "Mail down") {
    auto w = store_.Insert(table, {{"short_description", std::move(description)}});
    EXPECT_TRUE(w.ok());
    return std::string(w->row->sys_id());
  }

  std::vector<RowPtr> Rows(std::string_view table) {
    if (!store_.TableExists(table)) return {};
    return *store_.Snapshot(table);
  }

  TestClock clock_{kBaseTime};
  TableStore store_{clock_};
};

TEST_F(AuditTest, DeleteWritesSysAuditAndSysAuditDeleteRows) {
  const std::string id = Add("incident", "Mail <down> & out");
  clock_.Advance(7);
  WriteOptions alice;
  alice.user = "alice";
  ASSERT_TRUE(store_.Delete("incident", id, alice).ok());

  const auto audit = Rows("sys_audit");
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(Get(store_, audit[0], "sys_audit", "fieldname"), "DELETED");
  EXPECT_EQ(Get(store_, audit[0], "sys_audit", "tablename"), "incident");
  EXPECT_EQ(Get(store_, audit[0], "sys_audit", "documentkey"), id);
  EXPECT_EQ(Get(store_, audit[0], "sys_audit", "oldvalue"), "DELETED");
  EXPECT_EQ(Get(store_, audit[0], "sys_audit", "newvalue"), "DELETED");
  EXPECT_EQ(Get(store_, audit[0], "sys_audit", "user"), "alice");
  EXPECT_EQ(Get(store_, audit[0], "sys_audit", "sys_created_on"), "2026-03-01 12:00:07");
  EXPECT_TRUE(IsSysId(audit[0]->sys_id()));

  const auto deleted = Rows("sys_audit_delete");
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(Get(store_, deleted[0], "sys_audit_delete", "tablename"), "incident");
  EXPECT_EQ(Get(store_, deleted[0], "sys_audit_delete", "documentkey"), id);
  const std::string payload = Get(store_, deleted[0], "sys_audit_delete", "payload");
  EXPECT_NE(payload.find("<record_update table=\"incident\">"), std::string::npos) << payload;
  EXPECT_NE(payload.find("<sys_id>" + id + "</sys_id>"), std::string::npos) << payload;
  EXPECT_NE(payload.find("<short_description>Mail &lt;down&gt; &amp; out</short_description>"),
            std::string::npos)
      << payload;
  EXPECT_FALSE(store_.Get("incident", id).ok());
}

TEST_F(AuditTest, WhatLeavesNoTraceOrOnlyTheAuditRow) {
  // sys_* tables are not audited: nothing at all.
  ASSERT_TRUE(store_.Delete("sys_user", Add("sys_user")).ok());
  EXPECT_TRUE(Rows("sys_audit").empty());
  // The Table Cleaner: nothing at all.
  const std::string cleaned = Add("incident");
  ASSERT_TRUE(store_.CleanerDelete("incident", cleaned).ok());
  EXPECT_FALSE(store_.Get("incident", cleaned).ok());
  EXPECT_TRUE(Rows("sys_audit").empty());
  EXPECT_TRUE(store_.CleanerDelete("incident", cleaned).code() == StatusCode::kNotFound);
  // no_audit_delete: nothing at all.
  store_.SetDeleteAudit("u_custom", true, /*no_audit_delete=*/true);
  ASSERT_TRUE(store_.Delete("u_custom", Add("u_custom")).ok());
  EXPECT_TRUE(Rows("sys_audit").empty());
  // A table that is not audited: the DELETED row, but no sys_audit_delete row.
  store_.SetDeleteAudit("u_custom", /*audited=*/false, false);
  ASSERT_TRUE(store_.Delete("u_custom", Add("u_custom")).ok());
  EXPECT_EQ(Rows("sys_audit").size(), 1u);
  EXPECT_TRUE(Rows("sys_audit_delete").empty());
}

TEST_F(AuditTest, UndeleteRestoresTheRowAsItWasAndWritesRecovered) {
  const std::string id = Add("incident");
  const RowPtr before = *store_.Get("incident", id);
  clock_.Advance(30);
  ASSERT_TRUE(store_.Delete("incident", id).ok());
  clock_.Advance(30);
  WriteOptions bob;
  bob.user = "bob";
  ASSERT_TRUE(store_.Undelete("incident", id, bob).ok());
  auto back = store_.Get("incident", id);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)->Values(), before->Values());  // sys_updated_on included: in the past
  const auto audit = Rows("sys_audit");
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_EQ(Get(store_, audit[1], "sys_audit", "fieldname"), "RECOVERED");
  EXPECT_EQ(Get(store_, audit[1], "sys_audit", "documentkey"), id);
  EXPECT_EQ(Get(store_, audit[1], "sys_audit", "user"), "bob");
  EXPECT_EQ(Get(store_, audit[1], "sys_audit", "sys_created_on"), "2026-03-01 12:01:00");
  // Restored once: nothing left to restore, and a live row is never overwritten.
  EXPECT_EQ(store_.Undelete("incident", id).code(), StatusCode::kNotFound);
  // A table that is not audited keeps nothing to restore from.
  store_.SetDeleteAudit("u_custom", false, false);
  const std::string custom = Add("u_custom");
  ASSERT_TRUE(store_.Delete("u_custom", custom).ok());
  EXPECT_EQ(store_.Undelete("u_custom", custom).code(), StatusCode::kNotFound);
}

// The source's audit queries (tablename, fieldname IN, keyset on sys_created_on) read one
// table's part of the by-tablename index and give what a scan + sort gives.
TEST_F(AuditTest, KeysetQueriesOnSysAuditUseTheTablenameIndexAndMatchScan) {
  std::mt19937 rng(7);
  std::vector<std::string> stamps;
  std::vector<Fields> rows;
  const std::vector<std::string> tables = {"incident", "problem", "u_custom", "change_request"};
  const std::vector<std::string> names = {"DELETED", "RECOVERED", "short_description"};
  for (int i = 0; i < 20000; ++i) {
    const std::string ts = FormatSnowTimestamp(kBaseTime + static_cast<int64_t>(rng() % 600));
    stamps.push_back(ts);
    rows.push_back({{"tablename", tables[rng() % tables.size()]},
                    {"fieldname", names[rng() % names.size()]},
                    {"documentkey", NewSysId()},
                    {"sys_created_on", ts},
                    {"sys_updated_on", ts}});
  }
  ASSERT_TRUE(store_.Load("sys_audit", rows).ok());
  // A few written one by one too (the incremental index path), after the loaded ones.
  clock_.Advance(1000);
  for (int i = 0; i < 50; ++i) {
    clock_.Advance(1);
    ASSERT_TRUE(store_.Delete("incident", Add("incident")).ok());
  }
  auto snap = *store_.Snapshot("sys_audit");
  auto schema = store_.Schema("sys_audit");
  auto expected = [&](const std::string& text) {
    CompiledQuery q(ParseEncodedQuery(text), *schema);
    std::vector<RowPtr> m;
    for (const RowPtr& r : snap) {
      if (q.Matches(*r)) m.push_back(r);
    }
    std::stable_sort(m.begin(), m.end(),
                     [&](const RowPtr& a, const RowPtr& b) { return q.OrderLess(*a, *b); });
    std::vector<std::string> ids;
    for (const RowPtr& r : m) ids.emplace_back(r->sys_id());
    return ids;
  };
  std::sort(stamps.begin(), stamps.end());
  int nonempty = 0;
  for (int iter = 0; iter < 60; ++iter) {
    std::string a = stamps[rng() % stamps.size()];
    std::string b = stamps[rng() % stamps.size()];
    if (a > b) std::swap(a, b);
    const std::string base =
        "tablename=" + tables[rng() % tables.size()] + "^fieldnameINDELETED,RECOVERED^";
    const std::string after(snap[rng() % snap.size()]->sys_id());
    const std::vector<std::string> forms = {
        base + "sys_created_on>" + a + "^sys_created_on<=" + b +
            "^ORDERBYsys_created_on^ORDERBYsys_id",
        base + "sys_created_on=" + a + "^sys_id>" + after + "^ORDERBYsys_id",
        base + "sys_created_on>" + a + "^ORDERBYDESCsys_created_on^ORDERBYDESCsys_id",
    };
    for (const std::string& text : forms) {
      SCOPED_TRACE(text);
      ListRequest req;
      req.query = ParseEncodedQuery(text);
      req.limit = 100000;
      auto page = store_.List("sys_audit", req);
      ASSERT_TRUE(page.ok());
      EXPECT_TRUE(page->ignored.empty());
      EXPECT_TRUE(page->used_index);
      std::vector<std::string> ids;
      for (const RowPtr& r : page->rows) ids.emplace_back(r->sys_id());
      const auto want = expected(text);
      ASSERT_EQ(ids, want);
      EXPECT_EQ(page->total, want.size());
      if (!want.empty()) ++nonempty;
    }
  }
  EXPECT_GT(nonempty, 100);
  // The incremental rows are found through the index too.
  ListRequest req;
  req.query = ParseEncodedQuery("tablename=incident^fieldname=DELETED^sys_created_on>" +
                                FormatSnowTimestamp(kBaseTime + 600) +
                                "^ORDERBYsys_created_on^ORDERBYsys_id");
  auto page = store_.List("sys_audit", req);
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->used_index);
  EXPECT_EQ(page->rows.size(), 50u);
}

}  // namespace
}  // namespace snowcar::emulator
