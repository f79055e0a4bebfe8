// SPDX-License-Identifier: Apache-2.0
// Routing: fixed table, topic map, and the table header with its checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "command_test_util.h"

namespace snowcar::sink {
namespace {

using ::testing::HasSubstr;
using testing::Record;
using testing::Settings;

const std::string kBody = R"({"short_description":"x"})";

TEST(RoutingTest, FixedTable) {
  auto c = DecodeCommand(Record(kBody), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->table, "incident");
}

TEST(RoutingTest, TopicMapIncludingDottedTopics) {
  SinkSettings s = Settings();
  s.routing = RoutingMode::kTopicMap;
  s.topic_table = {{"eu.orders.v1", "u_order"}, {"commands", "problem"}};
  kafka::InRecord r = Record(kBody);
  EXPECT_EQ(DecodeCommand(r, s)->table, "problem");
  r.topic = "eu.orders.v1";
  EXPECT_EQ(DecodeCommand(r, s)->table, "u_order");
  r.topic = "elsewhere";
  EXPECT_THAT(DecodeCommand(r, s).status().message(),
              HasSubstr("topic 'elsewhere' has no table: set snow.sink.topic.elsewhere.table"));
}

SinkSettings HeaderRouting() {
  SinkSettings s = Settings();
  s.routing = RoutingMode::kHeader;
  s.table_allowlist = {"incident", "problem"};
  return s;
}

TEST(RoutingTest, HeaderOnTheAllowlist) {
  auto c = DecodeCommand(Record(kBody, std::nullopt, {{"snow.table", "problem"}}), HeaderRouting());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->table, "problem");
}

TEST(RoutingTest, CustomHeaderName) {
  SinkSettings s = HeaderRouting();
  s.table_header = "target";
  auto c = DecodeCommand(Record(kBody, std::nullopt, {{"target", "incident"}}), s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->table, "incident");
}

TEST(RoutingTest, HeaderErrorsNameTheHeaderAndTheValue) {
  const SinkSettings s = HeaderRouting();
  EXPECT_THAT(DecodeCommand(Record(kBody), s).status().message(),
              HasSubstr("header 'snow.table' is missing"));
  EXPECT_THAT(DecodeCommand(Record(kBody, std::nullopt, {{"snow.table", std::nullopt}}), s)
                  .status()
                  .message(),
              HasSubstr("header 'snow.table' has no value"));
  EXPECT_THAT(DecodeCommand(Record(kBody, std::nullopt, {{"snow.table", "sys_user"}}), s)
                  .status()
                  .message(),
              HasSubstr("header 'snow.table' names table 'sys_user', which is not on "
                        "snow.sink.table.allowlist"));
  for (const char* bad : {"../sys_user", "Incident", "incident ", "", "a/b", "x?y=1"}) {
    auto c = DecodeCommand(Record(kBody, std::nullopt, {{"snow.table", bad}}), s);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(c.status().message(), HasSubstr("header 'snow.table' value '" + std::string(bad) +
                                                "' is not a table name"));
  }
}

TEST(RoutingTest, TableNameShape) {
  EXPECT_TRUE(IsValidTableName("incident"));
  EXPECT_TRUE(IsValidTableName("u_order_2"));
  EXPECT_FALSE(IsValidTableName(""));
  EXPECT_FALSE(IsValidTableName("sys-user"));
  EXPECT_FALSE(IsValidTableName(std::string(81, 'a')));
  EXPECT_TRUE(IsValidTableName(std::string(80, 'a')));
}

}  // namespace
}  // namespace snowcar::sink
