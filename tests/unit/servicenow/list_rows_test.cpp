// SPDX-License-Identifier: Apache-2.0
// A list answer read as row texts (SplitListRows, ParseTableResponse with rows_as_text): the
// rows are exactly the whole parse's, and every answer of another shape reads as before.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <random>
#include <string>

#include "fixture_loader.h"
#include "snowcar/servicenow/table_response.h"

namespace snowcar::servicenow {
namespace {

// The rows of `body` read both ways; the text way must have taken the body.
void ExpectSameRows(const std::string& body) {
  SCOPED_TRACE(body.substr(0, 200));
  InstanceResponse response;
  response.status = 200;
  response.body = body;
  const TableResponse whole = ParseTableResponse(response, 0);
  ASSERT_EQ(whole.kind, BodyKind::kList);
  const TableResponse text = ParseTableResponse(response, 0, /*rows_as_text=*/true);
  ASSERT_EQ(text.kind, BodyKind::kList);
  EXPECT_TRUE(text.rows.empty());
  EXPECT_TRUE(response.body.empty()) << "the body moves into the row texts";
  ASSERT_EQ(text.row_texts.size(), whole.rows.size());
  for (size_t i = 0; i < whole.rows.size(); ++i) {
    EXPECT_EQ(boost::json::parse(text.row_texts[i]), whole.rows[i]) << "row " << i;
  }
}

TEST(ListRowsTest, EveryRecordedListAnswerSplitsIntoItsRows) {
  int lists = 0;
  for (const testing::Fixture& f : testing::LoadAllFixtures()) {
    InstanceResponse copy = f.response;
    if (ParseTableResponse(copy, 0).kind != BodyKind::kList || copy.body.empty()) continue;
    SCOPED_TRACE(f.file);
    ExpectSameRows(copy.body);
    ++lists;
  }
  EXPECT_GE(lists, 3) << "the recorded answers include several lists";
}

TEST(ListRowsTest, BracketsQuotesAndEscapesInsideValuesDoNotCutARow) {
  ExpectSameRows(R"({"result":[]})");
  ExpectSameRows(" \n{ \"result\" :\t[ ] }\r\n");
  ExpectSameRows(R"({"result":[{"a":"]},{[\"\\"},{"b":[1,{"c":"}"}]}]})");
  ExpectSameRows(
      R"({"result":[{"short_description":"a \"quoted\" ] and \\ end\\"},{"x":"\u005d"}]})");
  ExpectSameRows(R"({"result":[1,-2.5e3,true,false,null,"s",[],{},[[{}]]]})");
  ExpectSameRows(R"({"result" : [ {"a":1} , {"b":2}
  ,{"c":"é\n"} ]})");
  ExpectSameRows(R"({"\u0072esult":[{"a":1}]})");  // the key spelled with an escape
}

TEST(ListRowsTest, RandomRowsSplitExactlyWhereTheWholeParseHasThem) {
  std::mt19937 rng(7);
  const std::string pieces[] = {"\"", "\\\"", "\\\\", "]", "[", "{", "}", ",", ":", "x", " ", "é"};
  for (int round = 0; round < 200; ++round) {
    boost::json::array rows;
    const int n = static_cast<int>(rng() % 6);
    for (int r = 0; r < n; ++r) {
      boost::json::object row;
      const int fields = static_cast<int>(rng() % 4);
      for (int f = 0; f < fields; ++f) {
        std::string value;
        const int len = static_cast<int>(rng() % 12);
        for (int c = 0; c < len; ++c) value += pieces[rng() % std::size(pieces)];
        row["f" + std::to_string(f)] = value;
      }
      if (rng() % 3 == 0) row["nested"] = boost::json::array{row, boost::json::object{}};
      rows.push_back(std::move(row));
    }
    ExpectSameRows(boost::json::serialize(boost::json::object{{"result", rows}}));
  }
}

TEST(ListRowsTest, AnyOtherShapeIsParsedWholeAsBefore) {
  for (const char* body : {
           R"({"result":[{"a":1}],"error":{"message":"cancelled"}})",  // a failed list
           R"({"error":{"message":"x"},"result":[]})",
           R"({"result":{"sys_id":"a"}})",  // a record
           R"({"results":[{"a":1}]})",      // another member
           R"([{"a":1}])",                  // not an object
           R"({"result":[{"a":1}]} trailing)",
           R"({"result":[{"a":1}])",  // cut short
           R"({"result":[{"a":1},]})",
           R"({"result":"text"})",
           "{}",  // an object without result (a fuzzer finding: read as an empty list)
           R"({"result":null})",
           "",
           "   ",
           "not json",
       }) {
    SCOPED_TRACE(body);
    InstanceResponse whole_in;
    whole_in.status = 200;
    whole_in.body = body;
    InstanceResponse text_in = whole_in;
    const TableResponse whole = ParseTableResponse(whole_in, 0);
    const TableResponse text = ParseTableResponse(text_in, 0, /*rows_as_text=*/true);
    EXPECT_EQ(text.kind, whole.kind);
    EXPECT_EQ(text.rows, whole.rows);
    EXPECT_EQ(text.record, whole.record);
    EXPECT_EQ(text.malformed_reason, whole.malformed_reason);
    EXPECT_EQ(text.error_message, whole.error_message);
    EXPECT_TRUE(text.row_texts.empty());
    EXPECT_EQ(text_in.body, body) << "a body read whole is left in place";
  }
}

TEST(ListRowsTest, HeadersAreReadTheSameWay) {
  InstanceResponse response;
  response.status = 200;
  response.body = R"({"result":[{"a":1}]})";
  response.headers = {{"X-Total-Count", "12"}, {"Date", "Sat, 05 Dec 2026 03:00:00 GMT"}};
  const TableResponse text = ParseTableResponse(response, 0, /*rows_as_text=*/true);
  EXPECT_EQ(text.total_count, 12);
  EXPECT_TRUE(text.server_date_ms.has_value());
  EXPECT_EQ(text.row_texts.size(), 1U);
}

}  // namespace
}  // namespace snowcar::servicenow
