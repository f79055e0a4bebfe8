// SPDX-License-Identifier: Apache-2.0
// The super-class chain of typed records: the walk through sys_db_object answers (a parent by
// the sys_id its child names, loops and missing parents refused naming the tables, the depth
// bound), and the column types over the chain (the nearest table's definition wins).
#include "snowcar/source/typed/super_class_walk.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "snowcar/source/typed/column_types.h"

namespace snowcar::source {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

boost::json::array Object(const std::string& name, const std::string& super_class) {
  boost::json::object row{{"name", name}};
  // As an instance answers without sysparm_exclude_reference_link: a link and the sys_id.
  if (!super_class.empty()) {
    row["super_class"] = boost::json::object{
        {"link", "https://x/api/now/table/sys_db_object/" + super_class}, {"value", super_class}};
  } else {
    row["super_class"] = "";
  }
  return boost::json::array{row};
}

TEST(SuperClassWalk, WalksFromTheTableByNameToTheRootBySysId) {
  SuperClassWalk walk("incident");
  EXPECT_EQ(walk.Query(), "name=incident");
  ASSERT_TRUE(walk.OnAnswer(Object("incident", "a1")).ok());
  EXPECT_FALSE(walk.done());
  EXPECT_EQ(walk.Query(), "sys_id=a1");
  // A plain sys_id (sysparm_exclude_reference_link=true) is read the same way.
  boost::json::array task{boost::json::object{{"name", "task"}, {"super_class", "b2"}}};
  ASSERT_TRUE(walk.OnAnswer(task).ok());
  EXPECT_EQ(walk.Query(), "sys_id=b2");
  ASSERT_TRUE(walk.OnAnswer(Object("root_table", "")).ok());
  EXPECT_TRUE(walk.done());
  EXPECT_THAT(walk.chain(), ElementsAre("incident", "task", "root_table"));
}

TEST(SuperClassWalk, AMissingTableOrParentIsNamed) {
  SuperClassWalk alone("u_gone");
  Status s = alone.OnAnswer(boost::json::array{});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("sys_db_object does not list the table u_gone"));

  SuperClassWalk walk("incident");
  ASSERT_TRUE(walk.OnAnswer(Object("incident", "dead")).ok());
  s = walk.OnAnswer(boost::json::array{});
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("no table with sys_id dead, the super_class of incident"));
}

TEST(SuperClassWalk, ALoopIsRefusedNamingTheChain) {
  SuperClassWalk walk("a");
  ASSERT_TRUE(walk.OnAnswer(Object("a", "1")).ok());
  ASSERT_TRUE(walk.OnAnswer(Object("b", "2")).ok());
  Status s = walk.OnAnswer(Object("a", "1"));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("loops: a -> b -> a"));
}

TEST(SuperClassWalk, AChainDeeperThanTheBoundIsRefused) {
  SuperClassWalk walk("t0");
  for (size_t i = 0; i < kMaxSuperClassDepth; ++i) {
    ASSERT_TRUE(walk.OnAnswer(Object("t" + std::to_string(i), "p")).ok()) << i;
  }
  EXPECT_EQ(walk.chain().size(), kMaxSuperClassDepth);
  Status s = walk.OnAnswer(Object("t_extra", "p"));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("deeper than 16 tables"));
}

boost::json::object Entry(const std::string& table, const std::string& element,
                          const std::string& type) {
  return {{"name", table}, {"element", element}, {"internal_type", type}};
}

TEST(ChainTypes, TheNearestTableDefinesAColumnWhateverTheRowOrder) {
  // task lists priority as an integer; incident overrides it as a string. The parent's row
  // comes after the child's in one answer and before it in the other: the child wins both.
  const boost::json::array child_first{
      Entry("incident", "priority", "string"), Entry("task", "priority", "integer"),
      Entry("task", "active", "boolean"),      Entry("incident", "caller_id", "reference"),
      Entry("task", "", "collection"),         Entry("u_other", "u_secret", "integer")};
  boost::json::array parent_first{child_first[1], child_first[0], child_first[2],
                                  child_first[3], child_first[4], child_first[5]};
  for (const boost::json::array& rows : {child_first, parent_first}) {
    auto types = TableTypesFromDictionary(std::vector<std::string>{"incident", "task"}, rows, 7);
    ASSERT_TRUE(types.ok()) << types.status().message();
    EXPECT_EQ(types->table, "incident");
    EXPECT_THAT(types->chain, ElementsAre("incident", "task"));
    ASSERT_EQ(types->columns.size(), 3u) << "u_other is not in the chain";
    ASSERT_NE(types->Find("priority"), nullptr);
    EXPECT_EQ(types->Find("priority")->type, LogicalType::kString);
    EXPECT_EQ(types->Find("active")->type, LogicalType::kBoolean);
    EXPECT_EQ(types->Find("caller_id")->type, LogicalType::kReference);
    EXPECT_EQ(types->Find("u_secret"), nullptr);
  }
}

TEST(ChainTypes, TheChainIsStoredWithTheTypesAndACopyWithoutOneDecodes) {
  auto types = TableTypesFromDictionary(std::vector<std::string>{"incident", "task"},
                                        boost::json::array{Entry("task", "active", "boolean")}, 9);
  ASSERT_TRUE(types.ok());
  auto back = TableTypes::Decode(types->Encode());
  ASSERT_TRUE(back.ok());
  EXPECT_THAT(back->chain, ElementsAre("incident", "task"));
  EXPECT_EQ(back->Find("active")->type, LogicalType::kBoolean);
  // Written before the chain was followed: no chain (the types are read again).
  auto old = TableTypes::Decode(
      R"({"v":1,"table":"incident","read_at_ms":3,"columns":[{"name":"active",)"
      R"("internal_type":"boolean","max_length":0,"scale":2,"reference":"","removed":false}]})");
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->chain.empty());
}

}  // namespace
}  // namespace snowcar::source
