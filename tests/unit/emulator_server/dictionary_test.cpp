// SPDX-License-Identifier: Apache-2.0
// The emulator's sys_dictionary: rows for its tables' columns with realistic internal types,
// kept in step with new tables and columns, and left alone when a test owns the table.
#include <gtest/gtest.h>

#include <map>

#include "emulator_fixture.h"

namespace snowcar::emulator::testing {
namespace {

class Dictionary : public EmulatorTest {
 protected:
  // element -> row, for one table, as a client reads them.
  std::map<std::string, boost::json::object> Columns(const std::string& table) {
    auto r = Get(Url("/api/now/table/sys_dictionary?sysparm_query=name%3D" + table));
    EXPECT_EQ(r.status, 200) << r.body;
    std::map<std::string, boost::json::object> out;
    const boost::json::value doc = Json(r.body);
    for (const auto& row : doc.at("result").as_array()) {
      out[std::string(row.at("element").as_string())] = row.as_object();
    }
    return out;
  }
};

TEST_F(Dictionary, ListsEveryColumnOfATableWithItsInternalType) {
  // incident extends task: the columns every task has are listed under name=task, once, and
  // incident's own under name=incident, as an instance lists them.
  auto own = Columns("incident");
  auto task = Columns("task");
  const std::map<std::string, std::string> expected_own = {
      {"", "collection"},
      {"category", "string"},  // a choice of words
      {"caller_id", "reference"},
      {"severity", "integer"}};
  const std::map<std::string, std::string> expected_task = {
      {"", "collection"},
      {"sys_id", "GUID"},
      {"sys_updated_on", "glide_date_time"},
      {"sys_mod_count", "integer"},
      {"sys_class_name", "sys_class_name"},
      {"short_description", "string"},
      {"priority", "integer"},  // a choice whose values are numbers
      {"active", "boolean"},
      {"opened_at", "glide_date_time"},
      {"sys_domain", "domain_id"}};
  for (const auto& [element, type] : expected_own) {
    ASSERT_TRUE(own.count(element)) << element;
    EXPECT_EQ(own[element].at("internal_type").as_string(), type) << element;
  }
  for (const auto& [element, type] : expected_task) {
    ASSERT_TRUE(task.count(element)) << element;
    EXPECT_EQ(task[element].at("internal_type").as_string(), type) << element;
    if (!element.empty()) {
      EXPECT_EQ(own.count(element), 0u) << element << " is task's";
    }
  }
  EXPECT_EQ(own["caller_id"].at("reference").as_string(), "sys_user");
  EXPECT_EQ(task["sys_id"].at("max_length").as_string(), "32");
  EXPECT_EQ(task["sys_id"].at("primary").as_string(), "true");
  EXPECT_EQ(task["short_description"].at("active").as_string(), "true");
  // A table that extends nothing lists all its columns itself.
  EXPECT_EQ(Columns("sys_user")["active"].at("internal_type").as_string(), "boolean");
}

TEST_F(Dictionary, SysDbObjectNamesEachTablesSuperClassBySysId) {
  // name -> the row, with super_class as a plain sys_id.
  std::map<std::string, boost::json::object> tables;
  auto r = Get(Url("/api/now/table/sys_db_object?sysparm_exclude_reference_link=true"));
  ASSERT_EQ(r.status, 200) << r.body;
  const boost::json::value all = Json(r.body);
  for (const auto& row : all.at("result").as_array()) {
    tables[std::string(row.at("name").as_string())] = row.as_object();
  }
  ASSERT_TRUE(tables.count("incident") && tables.count("task") && tables.count("sys_user"));
  EXPECT_EQ(tables["incident"].at("super_class").as_string(),
            tables["task"].at("sys_id").as_string());
  EXPECT_EQ(tables["task"].at("super_class").as_string(), "");
  EXPECT_EQ(tables["sys_user"].at("super_class").as_string(), "");
  // With links, super_class is a reference like any other.
  r = Get(Url("/api/now/table/sys_db_object?sysparm_query=name%3Dincident"));
  ASSERT_EQ(r.status, 200) << r.body;
  const boost::json::value one = Json(r.body);
  const auto& row = one.at("result").as_array().at(0);
  EXPECT_EQ(row.at("super_class").at("value").as_string(), tables["task"].at("sys_id").as_string());
}

TEST_F(Dictionary, NewColumnsAppearAndDeletedRowsStayDeleted) {
  ASSERT_EQ(Columns("u_thing").size(), 0u);
  ASSERT_TRUE(server_->store().CreateTable("u_thing").ok());
  auto created = Send("POST", Url("/api/now/table/u_thing"), R"({"u_size":"3"})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto cols = Columns("u_thing");
  ASSERT_TRUE(cols.count("u_size"));  // learned from the write, as a column added later
  EXPECT_EQ(cols["u_size"].at("internal_type").as_string(), "string");
  // A client deletes a column's row: the emulator does not bring it back.
  const std::string id(cols["u_size"].at("sys_id").as_string());
  ASSERT_EQ(Send("DELETE", Url("/api/now/table/sys_dictionary/" + id), "").status, 204);
  EXPECT_EQ(Columns("u_thing").count("u_size"), 0u);
}

TEST_F(Dictionary, RowsAClientWroteFirstKeepTheirType) {
  // Created and written before the first read: the test owns the dictionary, and the
  // emulator adds nothing to it.
  ASSERT_TRUE(server_->store().CreateTable("sys_dictionary").ok());
  ASSERT_TRUE(
      server_->store()
          .Insert("sys_dictionary",
                  {{"name", "u_asset"}, {"element", "u_cost"}, {"internal_type", "currency"}})
          .ok());
  auto cols = Columns("u_asset");
  ASSERT_EQ(cols.size(), 1u);
  EXPECT_EQ(cols["u_cost"].at("internal_type").as_string(), "currency");
  EXPECT_EQ(Columns("incident").size(), 0u);
}

}  // namespace
}  // namespace snowcar::emulator::testing
