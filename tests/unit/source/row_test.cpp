// SPDX-License-Identifier: Apache-2.0
// ReadRowKey on recorded rows and on hand-made bad ones; IsAfter's ordering.
#include "snowcar/source/rows/row.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture_rows.h"
#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

using testing::FixtureRows;
using ::testing::HasSubstr;
using testing::Ts;

TableSettings Table() {
  TableSettings t;
  t.alias = "inc";
  t.name = "incident";
  return t;
}

boost::json::object Row(std::string_view json) { return boost::json::parse(json).as_object(); }

TEST(ReadRowKeyTest, RecordedRawRows) {
  struct Case {
    const char* file;
    const char* sys_id;
    const char* ts;
    uint32_t mod_count;
  };
  for (const Case& c : {
           Case{"07-list-v2-link-unknown-params-echoed.json", "1c741bd70b2322007518478d83673af3",
                "2016-12-14 02:46:44", 15},
           Case{"08-post-201-location.json", "26d1744d47603110d737cd9bd36d436b",
                "2023-08-07 10:59:39", 0},
           Case{"09-post-201-bad-reference-values.json", "896c865f9736111084d57e121153af5f",
                "2022-11-01 21:20:31", 0},
           Case{"10-patch-200-display-value-true.json", "1c741bd70b2322007518478d83673af3",
                "2022-11-04 15:29:20", 19},
           Case{"14-display-value-true-nulls.json", "8fbc3c053bc07300b924874064efc4ae",
                "2019-03-05 22:54:31", 0},
       }) {
    const auto rows = FixtureRows(c.file);
    ASSERT_FALSE(rows.empty()) << c.file;
    auto key = ReadRowKey(rows[0], Table());
    ASSERT_TRUE(key.ok()) << c.file << ": " << key.status().ToString();
    EXPECT_EQ(key->sys_id, c.sys_id) << c.file;
    EXPECT_EQ(key->ts, Ts(c.ts)) << c.file;
    EXPECT_EQ(key->mod_count, c.mod_count) << c.file;
  }
}

TEST(ReadRowKeyTest, EveryRecordedListRowReads) {
  for (const char* file :
       {"07-list-v2-link-unknown-params-echoed.json", "13-display-value-all.json"}) {
    for (const auto& row : FixtureRows(file)) {
      auto key = ReadRowKey(row, Table());
      EXPECT_TRUE(key.ok()) << file << ": " << key.status().ToString();
    }
  }
}

TEST(ReadRowKeyTest, DisplayValueAllUsesTheRawValue) {
  // The display value of sys_updated_on is in the user's zone (14:42:23); the value is UTC.
  const auto rows = FixtureRows("13-display-value-all.json");
  auto key = ReadRowKey(rows[0], Table());
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->sys_id, "a9e9c33dc61122760072455df62663d2");
  EXPECT_EQ(key->ts, Ts("2020-09-24 12:42:23"));
  EXPECT_EQ(key->mod_count, 21u);
}

TEST(ReadRowKeyTest, ModCountAsNumberOrMissing) {
  auto key = ReadRowKey(
      Row(R"({"sys_id":"ab","sys_updated_on":"2024-01-01 00:00:00","sys_mod_count":7})"), Table());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->mod_count, 7u);
  key = ReadRowKey(Row(R"({"sys_id":"ab","sys_updated_on":"2024-01-01 00:00:00"})"), Table());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->mod_count, 0u);
  key = ReadRowKey(
      Row(R"({"sys_id":"ab","sys_updated_on":"2024-01-01 00:00:00","sys_mod_count":""})"), Table());
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->mod_count, 0u);
}

TEST(ReadRowKeyTest, CustomFields) {
  TableSettings t = Table();
  t.sys_id_field = "inc_sys_id";
  t.timestamp_field = "inc_sys_created_on";
  // The key's sys_id views into the row, so the row must outlive it.
  const boost::json::object row =
      Row(R"({"inc_sys_id":"cd","inc_sys_created_on":"2024-01-01 00:00:01","sys_id":"zz"})");
  auto key = ReadRowKey(row, t);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->sys_id, "cd");
  EXPECT_EQ(key->ts, Ts("2024-01-01 00:00:01"));
}

std::string Error(std::string_view json) {
  auto key = ReadRowKey(Row(json), Table());
  EXPECT_FALSE(key.ok()) << json;
  EXPECT_EQ(key.status().code(), StatusCode::kInvalidArgument);
  return key.status().message();
}

TEST(ReadRowKeyTest, BadRowsNameTableRowFieldValueAndTheWayToSkip) {
  const std::string skip = "set snow.source.bad.row.behavior=skip";
  std::string e = Error(R"({"sys_updated_on":"2024-01-01 00:00:00"})");
  EXPECT_THAT(e, HasSubstr("table incident (alias inc): row without a usable id: field sys_id "
                           "is missing"));
  EXPECT_THAT(e, HasSubstr(skip));
  e = Error(R"({"sys_id":"  ","sys_updated_on":"2024-01-01 00:00:00"})");
  EXPECT_THAT(e, HasSubstr("field sys_id is blank"));
  e = Error(R"({"sys_id":null,"sys_updated_on":"2024-01-01 00:00:00"})");
  EXPECT_THAT(e, HasSubstr("field sys_id is not a string (null)"));
  e = Error(R"({"sys_id":"a^ORb","sys_updated_on":"2024-01-01 00:00:00"})");
  EXPECT_THAT(e, HasSubstr("'a^ORb', which contains '^'"));
  e = Error(R"({"sys_id":"ab"})");
  EXPECT_THAT(e, HasSubstr("row sys_id=ab: field sys_updated_on is missing"));
  EXPECT_THAT(e, HasSubstr(skip));
  e = Error(R"({"sys_id":"ab","sys_updated_on":"31.01.2024 10:00"})");
  EXPECT_THAT(e, HasSubstr("row sys_id=ab: field sys_updated_on has the value '31.01.2024 "
                           "10:00', which is not a UTC date-time YYYY-MM-DD HH:MM:SS"));
  EXPECT_THAT(e, HasSubstr(skip));
  e = Error(R"({"sys_id":"ab","sys_updated_on":""})");
  EXPECT_THAT(e, HasSubstr("field sys_updated_on has the value ''"));
  e = Error(R"({"sys_id":"ab","sys_updated_on":{"display_value":"x"}})");
  EXPECT_THAT(e, HasSubstr("field sys_updated_on is missing"));
  e = Error(R"({"sys_id":"ab","sys_updated_on":"2024-01-01 00:00:00","sys_mod_count":"1,204"})");
  EXPECT_THAT(e, HasSubstr("field sys_mod_count has the value '1,204', which is not a whole"));
  e = Error(R"({"sys_id":"ab","sys_updated_on":"2024-01-01 00:00:00","sys_mod_count":-1})");
  EXPECT_THAT(e, HasSubstr("sys_mod_count has the value '-1'"));
}

TEST(ReadRowKeyTest, LongValuesAreShortenedInMessages) {
  const std::string id(500, 'a');
  const std::string e = Error(R"({"sys_id":")" + id + R"(","sys_updated_on":"not a date"})");
  EXPECT_THAT(e, HasSubstr("sys_id=" + std::string(100, 'a') + "...:"));
}

TEST(IsAfterTest, OrdersByTimestampThenId) {
  const RowKey row{100, "5", 0};
  EXPECT_TRUE(IsAfter(row, 99, "9"));
  EXPECT_TRUE(IsAfter(row, 99, ""));
  EXPECT_FALSE(IsAfter(row, 101, ""));
  EXPECT_TRUE(IsAfter(row, 100, "4"));
  EXPECT_FALSE(IsAfter(row, 100, "5"));  // the cursor's own row is not after it
  EXPECT_FALSE(IsAfter(row, 100, "6"));
  // Ids compare as strings, not numbers.
  EXPECT_TRUE(IsAfter(RowKey{100, "a", 0}, 100, "9"));
  EXPECT_FALSE(IsAfter(RowKey{100, "10", 0}, 100, "9"));
}

TEST(IsAfterTest, SecondStartSortsBeforeEveryRowOfThatSecond) {
  for (std::string_view id : {"0", "00000000000000000000000000000000", "a", "ffff"}) {
    EXPECT_TRUE(IsAfter(RowKey{100, id, 0}, 100, "")) << id;
    EXPECT_FALSE(IsAfter(RowKey{99, id, 0}, 100, "")) << id;
  }
}

}  // namespace
}  // namespace snowcar::source
