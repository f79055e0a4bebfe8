// SPDX-License-Identifier: Apache-2.0
// TableStore write semantics: inserts, updates, deletes, timestamps from the injected clock.
#include "snowcar/testbed/emulator/table_store.h"

#include <gtest/gtest.h>

#include <set>

#include "test_clock.h"

namespace snowcar::emulator {
namespace {

using testing::kBaseTime;
using testing::TestClock;

std::string Field(const WriteResult& w, std::string_view name) {
  return std::string(w.row->Get(*w.schema->IndexOf(name)));
}

class TableStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.CreateTable("incident").ok());
    ASSERT_TRUE(store_.CreateTable("u_custom").ok());
  }
  TestClock clock_{kBaseTime};
  TableStore store_{clock_};
};

TEST_F(TableStoreTest, InsertStampsSystemFieldsDefaultsAndNumber) {
  WriteOptions as_sink;
  as_sink.user = "snowcar.sink";
  auto w =
      store_.Insert("incident", {{"short_description", "Mail down"}, {"priority", "2"}}, as_sink);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_TRUE(IsSysId(w->row->sys_id()));
  EXPECT_EQ(Field(*w, "sys_created_on"), "2026-03-01 12:00:00");
  EXPECT_EQ(Field(*w, "sys_updated_on"), "2026-03-01 12:00:00");
  EXPECT_EQ(Field(*w, "sys_created_by"), "snowcar.sink");
  EXPECT_EQ(Field(*w, "sys_updated_by"), "snowcar.sink");
  EXPECT_EQ(Field(*w, "sys_mod_count"), "0");
  EXPECT_EQ(Field(*w, "sys_class_name"), "incident");
  EXPECT_EQ(Field(*w, "sys_domain"), "global");
  EXPECT_EQ(Field(*w, "number"), "INC0010001");
  EXPECT_EQ(Field(*w, "priority"), "2");
  EXPECT_EQ(Field(*w, "state"), "1");
  EXPECT_EQ(Field(*w, "active"), "true");
  EXPECT_EQ(Field(*w, "opened_at"), "2026-03-01 12:00:00");
  EXPECT_EQ(Field(*w, "short_description"), "Mail down");
  EXPECT_TRUE(w->ignored_fields.empty());
  auto second = store_.Insert("incident", {});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(Field(*second, "number"), "INC0010002");
  EXPECT_NE(second->row->sys_id(), w->row->sys_id());
  EXPECT_EQ(store_.Count("incident"), 2u);
}

TEST_F(TableStoreTest, InsertWithGivenSysIdAndItsErrors) {
  const std::string id = "0123456789abcdef0123456789abcdef";
  auto w = store_.Insert("incident", {{"sys_id", id}});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->row->sys_id(), id);
  auto dup = store_.Insert("incident", {{"sys_id", id}});
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  auto bad = store_.Insert("incident", {{"sys_id", "NOT-HEX"}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("NOT-HEX"), std::string::npos);
  EXPECT_EQ(store_.Count("incident"), 1u);
}

TEST_F(TableStoreTest, ReadOnlyAndUnknownFieldsAreIgnoredAndReported) {
  auto w = store_.Insert("incident", {{"sys_mod_count", "9"},
                                      {"sys_updated_on", "2001-01-01 00:00:00"},
                                      {"u_not_a_column", "x"},
                                      {"opened_at", "yesterday"},
                                      {"caller_id", std::string(40, 'a')}});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->ignored_fields, (std::vector<std::string>{"sys_mod_count", "sys_updated_on",
                                                         "u_not_a_column", "opened_at"}));
  EXPECT_EQ(Field(*w, "sys_mod_count"), "0");
  EXPECT_EQ(Field(*w, "sys_updated_on"), "2026-03-01 12:00:00");
  EXPECT_EQ(Field(*w, "opened_at"), "");                    // an unparseable date is stored blank
  EXPECT_EQ(Field(*w, "caller_id"), std::string(32, 'a'));  // references cut to 32
  EXPECT_FALSE(w->schema->IndexOf("u_not_a_column").has_value());
}

TEST_F(TableStoreTest, GenericTablesLearnFieldsFromWrites) {
  auto w = store_.Insert("u_custom", {{"u_color", "red"}, {"name", "x"}});
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->ignored_fields.empty());
  EXPECT_EQ(Field(*w, "u_color"), "red");
  auto older = store_.Insert("u_custom", {{"u_size", "L"}});
  ASSERT_TRUE(older.ok());
  // Rows written before a field existed read it as empty.
  auto first = store_.Get("u_custom", w->row->sys_id());
  ASSERT_TRUE(first.ok());
  auto schema = store_.Schema("u_custom");
  EXPECT_EQ((*first)->Get(*schema->IndexOf("u_size")), "");
  EXPECT_EQ((*first)->Get(*schema->IndexOf("u_color")), "red");
}

TEST_F(TableStoreTest, UpdateMergesBumpsModCountAndStampsTime) {
  auto w = store_.Insert("incident", {{"short_description", "a"}, {"priority", "3"}});
  ASSERT_TRUE(w.ok());
  const std::string id(w->row->sys_id());
  clock_.Advance(5);
  WriteOptions by;
  by.user = "bob";
  auto u = store_.Update("incident", id, {{"priority", "1"}, {"sys_id", id}}, by);
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->changed);
  EXPECT_TRUE(u->ignored_fields.empty());
  EXPECT_EQ(Field(*u, "priority"), "1");
  EXPECT_EQ(Field(*u, "short_description"), "a");  // merged, not replaced
  EXPECT_EQ(Field(*u, "sys_mod_count"), "1");
  EXPECT_EQ(Field(*u, "sys_updated_on"), "2026-03-01 12:00:05");
  EXPECT_EQ(Field(*u, "sys_created_on"), "2026-03-01 12:00:00");
  EXPECT_EQ(Field(*u, "sys_updated_by"), "bob");
  EXPECT_EQ(Field(*u, "number"), Field(*w, "number"));
  clock_.Advance(1);
  auto again = store_.Update("incident", id, {{"short_description", "b"}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Field(*again, "sys_mod_count"), "2");
  // The old row object is untouched: readers holding it keep a consistent snapshot.
  EXPECT_EQ(Field(*w, "priority"), "3");
}

TEST_F(TableStoreTest, NoOpUpdateChangesNothing) {
  auto w = store_.Insert("incident", {{"priority", "3"}});
  ASSERT_TRUE(w.ok());
  clock_.Advance(10);
  auto u = store_.Update("incident", w->row->sys_id(), {{"priority", "3"}});
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->changed);
  EXPECT_EQ(Field(*u, "sys_mod_count"), "0");
  EXPECT_EQ(Field(*u, "sys_updated_on"), "2026-03-01 12:00:00");
}

TEST_F(TableStoreTest, ReplaceResetsFieldsNotGiven) {
  auto w = store_.Insert("incident", {{"priority", "1"}, {"short_description", "x"}});
  ASSERT_TRUE(w.ok());
  WriteOptions replace;
  replace.replace = true;
  auto u = store_.Update("incident", w->row->sys_id(), {{"description", "d"}}, replace);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Field(*u, "priority"), "5");  // back to the default
  EXPECT_EQ(Field(*u, "short_description"), "");
  EXPECT_EQ(Field(*u, "description"), "d");
  EXPECT_EQ(Field(*u, "number"), Field(*w, "number"));
}

TEST_F(TableStoreTest, MissingRecordsAndTables) {
  const std::string id = "0123456789abcdef0123456789abcdef";
  EXPECT_EQ(store_.Update("incident", id, {{"priority", "1"}}).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(store_.Delete("incident", id).code(), StatusCode::kNotFound);
  EXPECT_EQ(store_.Get("incident", id).status().code(), StatusCode::kNotFound);
  auto bad = store_.Insert("no_such_table", {});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("Invalid table no_such_table"), std::string::npos);
  EXPECT_FALSE(store_.TableExists("no_such_table"));
  EXPECT_EQ(store_.CreateTable("Bad Name").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_.Count("no_such_table"), 0u);
}

TEST_F(TableStoreTest, AutoCreateOption) {
  StoreOptions o;
  o.auto_create_tables = true;
  TableStore store(clock_, o);
  ASSERT_TRUE(store.Insert("x_app_table", {{"u_a", "1"}}).ok());
  EXPECT_TRUE(store.TableExists("x_app_table"));
  EXPECT_EQ(store.TableNames(), std::vector<std::string>{"x_app_table"});
}

TEST_F(TableStoreTest, DeleteRemovesAndKeepsOthers) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3000; ++i) {
    auto w = store_.Insert("incident", {{"short_description", std::to_string(i)}});
    ASSERT_TRUE(w.ok());
    ids.emplace_back(w->row->sys_id());
  }
  // Delete most of them (crosses the compaction threshold), then check the survivors.
  for (int i = 0; i < 3000; ++i) {
    if (i % 3 != 0) {
      ASSERT_TRUE(store_.Delete("incident", ids[i]).ok());
    }
  }
  EXPECT_EQ(store_.Count("incident"), 1000u);
  auto snap = store_.Snapshot("incident");
  ASSERT_TRUE(snap.ok());
  ASSERT_EQ(snap->size(), 1000u);
  for (size_t k = 0; k < snap->size(); ++k) EXPECT_EQ((*snap)[k]->sys_id(), ids[k * 3]);
  EXPECT_TRUE(store_.Get("incident", ids[3]).ok());
  EXPECT_FALSE(store_.Get("incident", ids[4]).ok());
  EXPECT_TRUE(store_.Update("incident", ids[6], {{"priority", "1"}}).ok());
}

TEST_F(TableStoreTest, RowAtWrapsAroundEveryRow) {
  EXPECT_EQ(store_.RowAt("incident", 0).status().code(), StatusCode::kNotFound);
  std::set<std::string> ids;
  for (int i = 0; i < 700; ++i) {
    auto w = store_.Insert("incident", {});
    ASSERT_TRUE(w.ok());
    ids.emplace(w->row->sys_id());
    if (i % 100 == 0) clock_.Advance(1);
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < 1400; ++i) {
    auto r = store_.RowAt("incident", i);
    ASSERT_TRUE(r.ok());
    seen.emplace((*r)->sys_id());
    EXPECT_EQ((*r)->sys_id(), (*store_.RowAt("incident", i + 700))->sys_id());
  }
  EXPECT_EQ(seen, ids);
}

TEST_F(TableStoreTest, LateVisibleWritesCarryPastTimestamps) {
  clock_.Advance(100);
  WriteOptions late;
  late.backdate_seconds = 30;
  auto w = store_.Insert("incident", {{"short_description", "late"}}, late);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Field(*w, "sys_updated_on"), "2026-03-01 12:01:10");
  EXPECT_EQ(Field(*w, "sys_created_on"), "2026-03-01 12:01:10");
  auto fresh = store_.Insert("incident", {});
  ASSERT_TRUE(fresh.ok());
  late.backdate_seconds = 90;
  auto u = store_.Update("incident", fresh->row->sys_id(), {{"priority", "2"}}, late);
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Field(*u, "sys_updated_on"), "2026-03-01 12:00:10");
  EXPECT_EQ(Field(*u, "sys_mod_count"), "1");
  // A keyset reader past 12:01:00 never sees the late update; one that re-reads does.
  ListRequest req;
  req.query =
      ParseEncodedQuery("sys_updated_on<2026-03-01 12:01:00^ORDERBYsys_updated_on^ORDERBYsys_id");
  auto page = store_.List("incident", req);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->rows.size(), 1u);
  EXPECT_EQ(page->rows[0]->sys_id(), fresh->row->sys_id());
}

TEST_F(TableStoreTest, ReferencesGivenByDisplayValueResolveToSysIds) {
  ASSERT_TRUE(store_.CreateTable("sys_user").ok());
  auto abel = store_.Insert("sys_user", {{"name", "Abel Tuter"}});
  ASSERT_TRUE(abel.ok());
  const std::string id(abel->row->sys_id());
  auto by_name = store_.Insert("incident", {{"caller_id", "Abel Tuter"}, {"opened_by", id}});
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(Field(*by_name, "caller_id"), id);
  EXPECT_EQ(Field(*by_name, "opened_by"), id);
  auto unknown = store_.Update("incident", by_name->row->sys_id(), {{"caller_id", "Nobody"}});
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(Field(*unknown, "caller_id"), "Nobody");  // stored verbatim, like an instance
}

TEST_F(TableStoreTest, DisplayOfUsesTheDisplayField) {
  ASSERT_TRUE(store_.CreateTable("sys_user").ok());
  auto u = store_.Insert("sys_user", {{"name", "Abel Tuter"}, {"user_name", "abel.tuter"}});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(store_.DisplayOf("sys_user", u->row->sys_id()), "Abel Tuter");
  EXPECT_EQ(store_.DisplayOf("sys_user", "0123456789abcdef0123456789abcdef"), "");
  EXPECT_EQ(store_.DisplayOf("nope", "x"), "");
}

}  // namespace
}  // namespace snowcar::emulator
