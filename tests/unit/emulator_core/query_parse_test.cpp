// SPDX-License-Identifier: Apache-2.0
// Encoded query parsing: operators, ^OR precedence, ^NQ, ORDERBY chains, ignored parts.
#include <gtest/gtest.h>

#include <random>

#include "snowcar/testbed/emulator/query.h"
#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {
namespace {

const QueryCondition& OnlyCondition(const EncodedQuery& q) {
  EXPECT_EQ(q.branches.size(), 1u);
  EXPECT_EQ(q.branches.at(0).all_of.size(), 1u);
  EXPECT_EQ(q.branches.at(0).all_of.at(0).any_of.size(), 1u);
  return q.branches.at(0).all_of.at(0).any_of.at(0);
}

struct OpCase {
  const char* text;
  const char* field;
  QueryOp op;
  const char* value;
};

TEST(QueryParse, EveryOperatorTakesTheLongestSpellingAtTheFieldEnd) {
  const OpCase cases[] = {
      {"number=INC0010001", "number", QueryOp::kEq, "INC0010001"},
      {"state!=7", "state", QueryOp::kNe, "7"},
      {"sys_mod_count<3", "sys_mod_count", QueryOp::kLt, "3"},
      {"sys_mod_count<=3", "sys_mod_count", QueryOp::kLe, "3"},
      {"sys_id>abc", "sys_id", QueryOp::kGt, "abc"},
      {"sys_id>=abc", "sys_id", QueryOp::kGe, "abc"},
      {"priorityIN1,2", "priority", QueryOp::kIn, "1,2"},
      {"nameNOT INa,b", "name", QueryOp::kNotIn, "a,b"},
      {"short_descriptionSTARTSWITHVPN", "short_description", QueryOp::kStartsWith, "VPN"},
      {"short_descriptionENDSWITH#1", "short_description", QueryOp::kEndsWith, "#1"},
      {"descriptionLIKEerror", "description", QueryOp::kLike, "error"},
      {"descriptionNOT LIKEerror", "description", QueryOp::kNotLike, "error"},
      {"resolved_atISEMPTY", "resolved_at", QueryOp::kIsEmpty, ""},
      {"resolved_atISNOTEMPTY", "resolved_at", QueryOp::kIsNotEmpty, ""},
      {"sys_updated_onBETWEEN2026-01-01 00:00:00@2026-01-02 00:00:00", "sys_updated_on",
       QueryOp::kBetween, "2026-01-01 00:00:00@2026-01-02 00:00:00"},
      {"caller_id.name=Abel Tuter", "caller_id.name", QueryOp::kEq, "Abel Tuter"},
      {"short_description=a=b<c", "short_description", QueryOp::kEq, "a=b<c"},
      {"correlation_id=", "correlation_id", QueryOp::kEq, ""},
  };
  for (const OpCase& c : cases) {
    SCOPED_TRACE(c.text);
    EncodedQuery q = ParseEncodedQuery(c.text);
    EXPECT_TRUE(q.ignored.empty());
    const QueryCondition& cond = OnlyCondition(q);
    EXPECT_EQ(cond.field, c.field);
    EXPECT_EQ(cond.op, c.op);
    EXPECT_EQ(cond.value, c.value);
  }
}

TEST(QueryParse, ListsAndRangesAreSplit) {
  EXPECT_EQ(OnlyCondition(ParseEncodedQuery("priorityIN1,2,,3")).values,
            (std::vector<std::string>{"1", "2", "", "3"}));
  EXPECT_EQ(OnlyCondition(ParseEncodedQuery("nameNOT INx")).values,
            (std::vector<std::string>{"x"}));
  EXPECT_EQ(OnlyCondition(ParseEncodedQuery("sys_mod_countBETWEEN1@5")).values,
            (std::vector<std::string>{"1", "5"}));
}

TEST(QueryParse, OrBindsTighterThanAnd) {
  EncodedQuery q = ParseEncodedQuery("active=true^priority=1^ORpriority=2^ORstate=3^category=x");
  ASSERT_EQ(q.branches.size(), 1u);
  const auto& groups = q.branches[0].all_of;
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].any_of.size(), 1u);
  ASSERT_EQ(groups[1].any_of.size(), 3u);
  EXPECT_EQ(groups[1].any_of[2].field, "state");
  EXPECT_EQ(groups[2].any_of[0].field, "category");
}

TEST(QueryParse, NqStartsANewBranchAndOrderByAppliesToAll) {
  EncodedQuery q = ParseEncodedQuery(
      "sys_updated_on>2026-01-01 00:00:00^sys_updated_on<2026-01-02 00:00:00^ORDERBYsys_updated_on"
      "^ORDERBYsys_id^NQsys_updated_on=2026-01-01 00:00:00^sys_id>abc^ORDERBYDESCnumber");
  ASSERT_EQ(q.branches.size(), 2u);
  EXPECT_EQ(q.branches[0].all_of.size(), 2u);
  EXPECT_EQ(q.branches[1].all_of.size(), 2u);
  ASSERT_EQ(q.order_by.size(), 3u);
  EXPECT_EQ(q.order_by[0].field, "sys_updated_on");
  EXPECT_FALSE(q.order_by[0].descending);
  EXPECT_EQ(q.order_by[1].field, "sys_id");
  EXPECT_EQ(q.order_by[2].field, "number");
  EXPECT_TRUE(q.order_by[2].descending);
  EXPECT_TRUE(q.ignored.empty());
}

TEST(QueryParse, OrderByAloneMatchesEverything) {
  EncodedQuery q = ParseEncodedQuery("ORDERBYDESCsys_created_on^ORDERBYnumber");
  EXPECT_TRUE(q.branches.empty());
  ASSERT_EQ(q.order_by.size(), 2u);
  EXPECT_TRUE(q.order_by[0].descending);
  EXPECT_FALSE(q.order_by[1].descending);
  EXPECT_TRUE(ParseEncodedQuery("").branches.empty());
}

TEST(QueryParse, CaretEscapeAndEndMarker) {
  EncodedQuery q = ParseEncodedQuery("short_description=a^^b^EQ");
  EXPECT_EQ(OnlyCondition(q).value, "a^b");
  EXPECT_TRUE(q.ignored.empty());
}

TEST(QueryParse, BadPartsAreIgnoredAndReported) {
  EncodedQuery q = ParseEncodedQuery(
      "priority=1^bogus^state~3^ORDERBY^resolved_atISEMPTYnow^sys_mod_countBETWEEN5^=x^"
      "ORDERBYDESCBad^GROUPBYstate");
  ASSERT_EQ(q.branches.size(), 1u);
  EXPECT_EQ(q.branches[0].all_of.size(), 1u);
  EXPECT_TRUE(q.order_by.empty());
  ASSERT_EQ(q.ignored.size(), 8u);
  EXPECT_EQ(q.ignored[0].text, "bogus");
  EXPECT_NE(q.ignored[0].reason.find("operator"), std::string::npos);
  EXPECT_EQ(q.ignored[1].text, "state~3");
  EXPECT_EQ(q.ignored[2].text, "ORDERBY");
  EXPECT_EQ(q.ignored[3].text, "resolved_atISEMPTYnow");
  EXPECT_EQ(q.ignored[4].text, "sys_mod_countBETWEEN5");
  EXPECT_NE(q.ignored[4].reason.find("low@high"), std::string::npos);
  EXPECT_EQ(q.ignored[5].text, "=x");
  EXPECT_EQ(q.ignored[6].text, "ORDERBYDESCBad");
  EXPECT_EQ(q.ignored[7].text, "GROUPBYstate");
}

TEST(QueryParse, OrAfterAnIgnoredConditionDoesNotJoinAnEarlierGroup) {
  EncodedQuery q = ParseEncodedQuery("priority=1^bad~x^ORstate=2");
  ASSERT_EQ(q.branches.size(), 1u);
  const auto& groups = q.branches[0].all_of;
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].any_of.size(), 1u);
  ASSERT_EQ(groups[1].any_of.size(), 1u);
  EXPECT_EQ(groups[1].any_of[0].field, "state");
}

TEST(QueryParse, EmptyNqBranchesAreReported) {
  EncodedQuery q = ParseEncodedQuery("^NQpriority=1^NQ");
  ASSERT_EQ(q.branches.size(), 1u);
  EXPECT_EQ(q.ignored.size(), 2u);
  // A branch whose only condition was ignored stays, and matches every row.
  EncodedQuery all = ParseEncodedQuery("priority=1^NQbad~1");
  EXPECT_EQ(all.branches.size(), 2u);
  EXPECT_TRUE(all.branches[1].all_of.empty());
}

TEST(QueryParse, CompileDropsUnknownFieldsAndReportsThem) {
  auto schema = SchemaForTable("incident");
  CompiledQuery q(ParseEncodedQuery("caller_id.name=Abel^priority=1^ORDERBYnope^ORDERBYnumber"),
                  *schema);
  ASSERT_EQ(q.ignored().size(), 2u);
  EXPECT_EQ(q.ignored()[0].text, "caller_id.name=Abel");
  EXPECT_NE(q.ignored()[0].reason.find("unknown field"), std::string::npos);
  EXPECT_EQ(q.ignored()[1].text, "ORDERBYnope");
  ASSERT_EQ(q.branches().size(), 1u);
  EXPECT_EQ(q.branches()[0].all_of.size(), 1u);
  EXPECT_EQ(q.order_by().size(), 1u);
  EXPECT_FALSE(q.matches_all());
  // Dropping the only condition leaves a query that matches every row, like an instance.
  EXPECT_TRUE(CompiledQuery(ParseEncodedQuery("nope=1"), *schema).matches_all());
}

TEST(QueryParse, RandomTextNeverCrashesAndEvaluates) {
  auto schema = SchemaForTable("incident");
  std::vector<std::string> values(schema->size());
  values[TableSchema::kSysId] = "0123456789abcdef0123456789abcdef";
  values[TableSchema::kSysUpdatedOn] = "2026-01-01 00:00:00";
  values[*schema->IndexOf("priority")] = "3";
  auto row = Row::Make(values);
  const std::string alphabet[] = {
      "^",       "^OR", "^NQ",  "ORDERBY", "DESC", "=", "!=",         "<",      ">",
      "<=",      "IN",  "NOT ", "LIKE",    "@",    ",", "priority",   "sys_id", "BETWEEN",
      "ISEMPTY", "a",   "1",    "^^",      "\xff", " ", "STARTSWITH", "."};
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int parts = static_cast<int>(rng() % 12);
    for (int k = 0; k < parts; ++k) text += alphabet[rng() % std::size(alphabet)];
    EncodedQuery q = ParseEncodedQuery(text);
    CompiledQuery c(q, *schema);
    (void)c.Matches(*row);
    (void)c.OrderLess(*row, *row);
  }
}

}  // namespace
}  // namespace snowcar::emulator
