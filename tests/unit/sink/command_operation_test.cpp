// SPDX-License-Identifier: Apache-2.0
// Operation resolution: the header vocabulary, each mode, UPSERT with and without a sys_id,
// and the rules on sys_id and null values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "command_test_util.h"

namespace snowcar::sink {
namespace {

using ::testing::HasSubstr;
using testing::kId1;
using testing::Record;
using testing::Settings;

const std::string kOperationBody = R"({"short_description":"x"})";

Result<Command> WithHeader(const std::string& op, bool with_sys_id,
                           const SinkSettings& s = Settings()) {
  return DecodeCommand(
      Record(kOperationBody, with_sys_id ? std::optional<std::string>(kId1) : std::nullopt,
             {{"snow.operation", op}}),
      s);
}

TEST(OperationTest, HeaderVocabularyIsCaseInsensitive) {
  EXPECT_EQ(WithHeader("CREATE", false)->operation, Operation::kCreate);
  EXPECT_EQ(WithHeader("post", false)->operation, Operation::kCreate);
  EXPECT_EQ(WithHeader("Patch", true)->operation, Operation::kPatch);
  EXPECT_EQ(WithHeader("put", true)->operation, Operation::kPut);
  EXPECT_EQ(WithHeader(" delete ", true)->operation, Operation::kDelete);
  EXPECT_EQ(WithHeader("update", true)->operation, Operation::kPatch);
  SinkSettings put = Settings();
  put.update_method = Operation::kPut;
  EXPECT_EQ(WithHeader("UPDATE", true, put)->operation, Operation::kPut);
}

TEST(OperationTest, CreateKeepsAnExplicitSysId) {
  auto c = WithHeader("CREATE", true);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->operation, Operation::kCreate);
  EXPECT_EQ(c->sys_id, kId1);
}

TEST(OperationTest, UpsertWithAndWithoutSysId) {
  auto update = WithHeader("UPSERT", true);
  ASSERT_TRUE(update.ok()) << update.status().ToString();
  EXPECT_EQ(update->operation, Operation::kPatch);
  EXPECT_FALSE(update->from_upsert);
  SinkSettings put = Settings();
  put.update_method = Operation::kPut;
  EXPECT_EQ(WithHeader("upsert", true, put)->operation, Operation::kPut);

  auto create = WithHeader("upsert", false);
  ASSERT_TRUE(create.ok()) << create.status().ToString();
  EXPECT_EQ(create->operation, Operation::kCreate);
  EXPECT_TRUE(create->from_upsert);
  EXPECT_EQ(create->sys_id, "");
}

TEST(OperationTest, UnknownHeaderValueListsTheAllowedOnes) {
  auto c = WithHeader("MERGE", true);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("header 'snow.operation' value 'MERGE' is not an operation (allowed, in "
                        "any letter case: CREATE, POST, PATCH, PUT, UPDATE, DELETE, UPSERT)"));
  EXPECT_THAT(WithHeader("", true).status().message(), HasSubstr("value '' is not an operation"));
}

TEST(OperationTest, CustomHeaderName) {
  SinkSettings s = Settings();
  s.operation_header = "op";
  auto c = DecodeCommand(Record(kOperationBody, std::string(kId1), {{"op", "PUT"}}), s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->operation, Operation::kPut);
}

TEST(OperationTest, HeaderRequired) {
  SinkSettings s = Settings();
  s.operation_header_required = true;
  EXPECT_THAT(DecodeCommand(Record(kOperationBody, std::string(kId1)), s).status().message(),
              HasSubstr("header 'snow.operation' is missing, and "
                        "snow.sink.operation.header.required is true"));
  EXPECT_TRUE(WithHeader("PATCH", true, s).ok());
}

TEST(OperationTest, KeyValueInference) {
  const SinkSettings s = Settings();
  EXPECT_EQ(DecodeCommand(Record(kOperationBody), s)->operation, Operation::kCreate);
  EXPECT_EQ(DecodeCommand(Record(kOperationBody, std::string(kId1)), s)->operation,
            Operation::kPatch);
  auto del = DecodeCommand(Record(std::nullopt, std::string(kId1)), s);
  ASSERT_TRUE(del.ok()) << del.status().ToString();
  EXPECT_EQ(del->operation, Operation::kDelete);
  EXPECT_TRUE(del->fields.empty());
  SinkSettings put = s;
  put.update_method = Operation::kPut;
  EXPECT_EQ(DecodeCommand(Record(kOperationBody, std::string(kId1)), put)->operation,
            Operation::kPut);
}

TEST(OperationTest, HeaderModeWithoutHeaderInfers) {
  SinkSettings s = Settings();
  s.operation_mode = OperationMode::kHeader;
  EXPECT_EQ(DecodeCommand(Record(kOperationBody, std::string(kId1)), s)->operation,
            Operation::kPatch);
  EXPECT_EQ(WithHeader("PUT", true, s)->operation, Operation::kPut);
}

TEST(OperationTest, FixedMode) {
  SinkSettings s = Settings();
  s.operation_mode = OperationMode::kFixed;
  s.operation_fixed = Operation::kPut;
  EXPECT_EQ(DecodeCommand(Record(kOperationBody, std::string(kId1)), s)->operation,
            Operation::kPut);
  // The header still wins when present.
  EXPECT_EQ(WithHeader("PATCH", true, s)->operation, Operation::kPatch);
  s.operation_fixed = Operation::kCreate;
  s.operation_fixed_upsert = true;
  EXPECT_EQ(DecodeCommand(Record(kOperationBody, std::string(kId1)), s)->operation,
            Operation::kPatch);
  auto c = DecodeCommand(Record(kOperationBody), s);
  EXPECT_EQ(c->operation, Operation::kCreate);
  EXPECT_TRUE(c->from_upsert);
}

TEST(OperationTest, UpdatesAndDeletesNeedASysId) {
  for (const char* op : {"PATCH", "PUT", "UPDATE", "DELETE"}) {
    auto c = WithHeader(op, false);
    ASSERT_FALSE(c.ok()) << op;
    EXPECT_THAT(c.status().message(), HasSubstr("needs the target row's sys_id, but the record "
                                                "carries none"));
  }
  SinkSettings s = Settings();
  s.operation_mode = OperationMode::kFixed;
  s.operation_fixed = Operation::kDelete;
  EXPECT_THAT(DecodeCommand(Record(kOperationBody), s).status().message(),
              HasSubstr("DELETE needs the target row's sys_id"));
}

TEST(OperationTest, NullValueOnlyForDelete) {
  for (const char* op : {"CREATE", "PATCH", "PUT", "UPSERT"}) {
    auto c = DecodeCommand(Record(std::nullopt, std::string(kId1), {{"snow.operation", op}}),
                           Settings());
    ASSERT_FALSE(c.ok()) << op;
    EXPECT_THAT(c.status().message(),
                HasSubstr("the record value is null, which only a DELETE may carry"));
  }
  auto del = DecodeCommand(Record(std::nullopt, std::string(kId1), {{"snow.operation", "DELETE"}}),
                           Settings());
  EXPECT_TRUE(del.ok());
}

TEST(OperationTest, DeleteIgnoresTheValueBody) {
  auto c = DecodeCommand(
      Record("not json at all", std::string(kId1), {{"snow.operation", "DELETE"}}), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->operation, Operation::kDelete);
  EXPECT_TRUE(c->fields.empty());
}

TEST(OperationTest, ReplayedSourceRecordsAreRefused) {
  auto c = DecodeCommand(Record(kOperationBody, std::string(kId1),
                                {{"snow.table", "incident"}, {"snow.source.operation", "UPSERT"}}),
                         Settings());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(), HasSubstr("header 'snow.source.operation'"));
  EXPECT_THAT(c.status().message(), HasSubstr("source rows are never applied as commands"));
}

}  // namespace
}  // namespace snowcar::sink
