// SPDX-License-Identifier: Apache-2.0
// sys_audit_delete payloads: both readings of the wrapper an instance may write around the
// row (docs/testbed.md), decoding, projection and the errors for what is not a row.
#include "source/deletes/deleted_row_payload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace snowcar::source {
namespace {

using ::testing::HasSubstr;

TEST(DeletedRowPayload, ReadsTheRowInsideARecordUpdate) {
  const std::string xml =
      R"(<?xml version="1.0" encoding="UTF-8"?><record_update table="incident">)"
      R"(<incident action="DELETE"><number>INC0010001</number><active>true</active>)"
      R"(<short_description>Printer &amp; scanner &lt;down&gt;</short_description>)"
      R"(<description><![CDATA[line one
line <two>]]></description><close_notes/>)"
      R"(<caller_id display_value="Abel Tuter">62826bf03710200044e0bfc8bcbe5df1</caller_id>)"
      R"(</incident></record_update>)";
  auto row = ParseDeletedRowPayload(xml, "incident", {});
  ASSERT_TRUE(row.ok()) << row.status().message();
  EXPECT_EQ(row->at("number"), "INC0010001");
  EXPECT_EQ(row->at("active"), "true");
  EXPECT_EQ(row->at("short_description"), "Printer & scanner <down>");
  EXPECT_EQ(row->at("description"), "line one\nline <two>");
  EXPECT_EQ(row->at("close_notes"), "");
  EXPECT_EQ(row->at("caller_id"), "62826bf03710200044e0bfc8bcbe5df1");
  EXPECT_EQ(row->size(), 6u);  // attributes are not fields
}

TEST(DeletedRowPayload, ReadsABareRecordElementToo) {
  auto row = ParseDeletedRowPayload(
      "<incident><number>INC1</number><!-- exported --><state>7</state></incident>", "incident",
      {});
  ASSERT_TRUE(row.ok()) << row.status().message();
  EXPECT_EQ(row->at("number"), "INC1");
  EXPECT_EQ(row->at("state"), "7");
  EXPECT_EQ(row->size(), 2u);
}

TEST(DeletedRowPayload, KeepsOnlyTheTablesFieldsWhenTheyAreSet) {
  auto row = ParseDeletedRowPayload(
      "<incident><number>INC1</number><state>7</state><sys_id>x</sys_id></incident>", "incident",
      {"sys_id", "number"});
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->size(), 2u);
  EXPECT_EQ(row->at("number"), "INC1");
  EXPECT_FALSE(row->contains("state"));
}

TEST(DeletedRowPayload, WhatIsNotARowOfTheTableIsRefusedSayingWhat) {
  auto bad = ParseDeletedRowPayload("<incident><number>INC1</incident>", "incident", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("not XML"));

  auto other = ParseDeletedRowPayload("<problem><number>PRB1</number></problem>", "incident", {});
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("no <incident> element"));

  EXPECT_FALSE(ParseDeletedRowPayload("", "incident", {}).ok());
}

}  // namespace
}  // namespace snowcar::source
