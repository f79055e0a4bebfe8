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
  auto cols = Columns("incident");
  const std::map<std::string, std::string> expected = {
      {"", "collection"},
      {"sys_id", "GUID"},
      {"sys_updated_on", "glide_date_time"},
      {"sys_mod_count", "integer"},
      {"sys_class_name", "sys_class_name"},
      {"short_description", "string"},
      {"priority", "integer"},  // a choice whose values are numbers
      {"category", "string"},   // a choice of words
      {"active", "boolean"},
      {"opened_at", "glide_date_time"},
      {"caller_id", "reference"},
      {"sys_domain", "domain_id"}};
  for (const auto& [element, type] : expected) {
    ASSERT_TRUE(cols.count(element)) << element;
    EXPECT_EQ(cols[element].at("internal_type").as_string(), type) << element;
  }
  EXPECT_EQ(cols["caller_id"].at("reference").as_string(), "sys_user");
  EXPECT_EQ(cols["sys_id"].at("max_length").as_string(), "32");
  EXPECT_EQ(cols["sys_id"].at("primary").as_string(), "true");
  EXPECT_EQ(cols["short_description"].at("active").as_string(), "true");
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
