// SPDX-License-Identifier: Apache-2.0
// SinkSettings::FromConfig: defaults of every sink key, and each bad combination with a message
// naming the keys involved.
#include "snowcar/sink/sink_settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "snowcar/config/config.h"

namespace snowcar::sink {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

using Values = std::map<std::string, std::string>;

Values Base() {
  return {{"snow.url", "https://acme.service-now.com"},
          {"snow.auth.username", "svc"},
          {"snow.auth.password", "pw-not-used"},
          {"source.enabled", "false"},
          {"snow.sink.topics", "commands"},
          {"snow.sink.table", "incident"}};
}

Values With(Values base, const Values& more) {
  for (const auto& [k, v] : more) base[k] = v;
  return base;
}

Result<SinkSettings> Load(const Values& values) {
  auto config = config::Config::FromMap(values);
  if (!config.ok()) return config.status();
  return SinkSettings::FromConfig(*config);
}

// The message of a configuration that must be refused, by the loader or by FromConfig.
std::string Refusal(const Values& values) {
  auto settings = Load(values);
  EXPECT_FALSE(settings.ok());
  return settings.ok() ? "" : settings.status().message();
}

TEST(SinkSettingsTest, Defaults) {
  auto s = Load(Base());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->topics, ElementsAre("commands"));
  EXPECT_EQ(s->routing, RoutingMode::kFixed);
  EXPECT_EQ(s->table, "incident");
  EXPECT_EQ(s->table_header, "snow.table");
  EXPECT_TRUE(s->table_allowlist.empty());
  EXPECT_EQ(s->operation_mode, OperationMode::kKeyValue);
  EXPECT_EQ(s->operation_header, "snow.operation");
  EXPECT_FALSE(s->operation_header_required);
  EXPECT_FALSE(s->operation_fixed_upsert);
  EXPECT_EQ(s->update_method, Operation::kPatch);
  EXPECT_EQ(s->sys_id_key_field, "sys_id");
  EXPECT_EQ(s->sys_id_value_field, "sys_id");
  EXPECT_EQ(s->sys_id_precedence, SysIdPrecedence::kReject);
  EXPECT_EQ(s->null_behavior, NullBehavior::kOmit);
  EXPECT_EQ(s->unknown_field, UnknownFieldBehavior::kFail);
  EXPECT_EQ(s->nested, NestedBehavior::kReject);
  EXPECT_EQ(s->flatten_delimiter, "_");
  EXPECT_TRUE(s->renames.empty());
  EXPECT_TRUE(s->field_allowlist.empty());
  EXPECT_TRUE(s->field_denylist.empty());
  EXPECT_EQ(s->max_in_flight, 8);
  EXPECT_EQ(s->ambiguous_create, AmbiguousCreateBehavior::kFailAmbiguous);
  EXPECT_EQ(s->max_ambiguous_posts, 5) << "snow.retry.max.attempts";
  EXPECT_EQ(s->not_found, NotFoundBehavior::kFail);
  EXPECT_EQ(s->on_api_errors, ApiErrorBehavior::kFail);
  EXPECT_EQ(s->dlq_topic, "");
  EXPECT_EQ(s->reporter_success_topic, "");
  EXPECT_EQ(s->reporter_error_topic, "");
  EXPECT_FALSE(s->reporter_include_request_body);
}

TEST(SinkSettingsTest, ReadsEveryKeyAndMatchesEnumsCaseInsensitively) {
  Values base = Base();
  base.erase("snow.sink.topics");
  auto s = Load(With(base, {{"topics", "a.b,c"},
                            {"snow.sink.routing.mode", "TOPIC_MAP"},
                            {"snow.sink.topic.a.b.table", "u_order"},
                            {"snow.sink.topic.c.table", "incident"},
                            {"snow.sink.operation.mode", "Fixed"},
                            {"snow.sink.operation.fixed", "update"},
                            {"snow.sink.update.method", "put"},
                            {"snow.sink.sys.id.precedence", "VALUE"},
                            {"snow.sink.null.behavior", "clear"},
                            {"snow.sink.unknown.field.behavior", "report"},
                            {"snow.sink.nested.behavior", "flatten"},
                            {"snow.sink.nested.flatten.delimiter", "__"},
                            {"snow.sink.field.rename", "title:short_description, prio:priority"},
                            {"snow.sink.field.denylist", "secret_note"},
                            {"snow.sink.max.in.flight", "4"},
                            {"snow.sink.create.ambiguous.behavior", "correlation_lookup"},
                            {"snow.sink.correlation.field", "u_ext_id"},
                            {"snow.sink.not.found.behavior", "create"},
                            {"behavior.on.api.errors", "log"},
                            {"errors.deadletterqueue.topic.name", "dlq"},
                            {"snow.sink.reporter.success.topic", "ok"},
                            {"snow.sink.reporter.error.topic", "bad"},
                            {"snow.sink.reporter.include.request.body", "true"},
                            {"snow.retry.max.attempts", "3"}}));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->topics, ElementsAre("a.b", "c"));
  EXPECT_EQ(s->routing, RoutingMode::kTopicMap);
  EXPECT_THAT(s->topic_table, ElementsAre(Pair("a.b", "u_order"), Pair("c", "incident")));
  EXPECT_EQ(s->operation_mode, OperationMode::kFixed);
  EXPECT_EQ(s->update_method, Operation::kPut);
  EXPECT_EQ(s->operation_fixed, Operation::kPut) << "UPDATE means the update method";
  EXPECT_EQ(s->sys_id_precedence, SysIdPrecedence::kValue);
  EXPECT_EQ(s->null_behavior, NullBehavior::kClear);
  EXPECT_EQ(s->unknown_field, UnknownFieldBehavior::kReport);
  EXPECT_EQ(s->nested, NestedBehavior::kFlatten);
  EXPECT_EQ(s->flatten_delimiter, "__");
  EXPECT_THAT(s->renames,
              ElementsAre(Pair("title", "short_description"), Pair("prio", "priority")));
  EXPECT_THAT(s->field_denylist, ElementsAre("secret_note"));
  EXPECT_EQ(s->max_in_flight, 4);
  EXPECT_EQ(s->ambiguous_create, AmbiguousCreateBehavior::kCorrelationLookup);
  EXPECT_EQ(s->correlation_field, "u_ext_id");
  EXPECT_EQ(s->max_ambiguous_posts, 3);
  EXPECT_EQ(s->not_found, NotFoundBehavior::kCreate);
  EXPECT_EQ(s->on_api_errors, ApiErrorBehavior::kLog);
  EXPECT_EQ(s->dlq_topic, "dlq");
  EXPECT_EQ(s->reporter_success_topic, "ok");
  EXPECT_EQ(s->reporter_error_topic, "bad");
  EXPECT_TRUE(s->reporter_include_request_body);
}

TEST(SinkSettingsTest, FixedUpsertAndHeaderRouting) {
  auto s = Load(With(Base(), {{"snow.sink.operation.mode", "fixed"},
                              {"snow.sink.operation.fixed", "UPSERT"},
                              {"snow.sink.routing.mode", "header"},
                              {"snow.sink.table.allowlist", "incident, problem"}}));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->operation_fixed_upsert);
  EXPECT_EQ(s->routing, RoutingMode::kHeader);
  EXPECT_THAT(s->table_allowlist, ElementsAre("incident", "problem"));
}

TEST(SinkSettingsTest, FixedOperations) {
  const std::vector<std::pair<std::string, Operation>> cases = {
      {"create", Operation::kCreate}, {"POST", Operation::kCreate},
      {"Patch", Operation::kPatch},   {"put", Operation::kPut},
      {"DELETE", Operation::kDelete}, {"update", Operation::kPatch}};
  for (const auto& [word, op] : cases) {
    auto s = Load(
        With(Base(), {{"snow.sink.operation.mode", "fixed"}, {"snow.sink.operation.fixed", word}}));
    ASSERT_TRUE(s.ok()) << word << ": " << s.status().ToString();
    EXPECT_EQ(s->operation_fixed, op) << word;
    EXPECT_FALSE(s->operation_fixed_upsert) << word;
  }
}

TEST(SinkSettingsTest, TopicsRequiredWhenTheSinkRuns) {
  Values v = Base();
  v.erase("snow.sink.topics");
  EXPECT_THAT(Refusal(v), HasSubstr("snow.sink.topics (or topics) is required because "
                                    "sink.enabled is true"));
  v["sink.enabled"] = "false";
  v["source.enabled"] = "false";
  EXPECT_TRUE(Load(v).ok()) << "without the sink, no topics are needed";
}

TEST(SinkSettingsTest, BadTopicNamesAndRepeats) {
  const std::string m = Refusal(With(Base(), {{"snow.sink.topics", "ok,bad topic,ok"}}));
  EXPECT_THAT(m, HasSubstr("'bad topic' is not a Kafka topic name"));
  EXPECT_THAT(m, HasSubstr("'ok' is listed twice"));
}

TEST(SinkSettingsTest, FixedRoutingNeedsTheTable) {
  Values v = Base();
  v.erase("snow.sink.table");
  EXPECT_THAT(Refusal(v), HasSubstr("snow.sink.table is required because "
                                    "snow.sink.routing.mode is fixed"));
}

TEST(SinkSettingsTest, TopicMapNeedsATablePerConsumedTopic) {
  const std::string m = Refusal(With(Base(), {{"snow.sink.topics", "eu.orders,us.orders"},
                                              {"snow.sink.routing.mode", "topic_map"},
                                              {"snow.sink.topic.eu.orders.table", "u_order"}}));
  EXPECT_THAT(m, HasSubstr("snow.sink.topic.us.orders.table is required"));
  EXPECT_THAT(m, Not(HasSubstr("eu.orders.table is required")));
}

TEST(SinkSettingsTest, HeaderRoutingNeedsAnAllowlist) {
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.routing.mode", "header"}})),
              HasSubstr("snow.sink.table.allowlist is required because "
                        "snow.sink.routing.mode is header"));
}

TEST(SinkSettingsTest, TableNamesAreCheckedWhenLoaded) {
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.table", "../sys_user"}})),
              AllOf(HasSubstr("snow.sink.table"), HasSubstr("is not a table name")));
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.table.allowlist", "incident,Sys_User"}})),
              AllOf(HasSubstr("snow.sink.table.allowlist"), HasSubstr("'Sys_User'")));
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.topic.x.table", "a b"}})),
              HasSubstr("snow.sink.topic.x.table"));
}

TEST(SinkSettingsTest, FixedOperationModeNeedsTheOperation) {
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.operation.mode", "fixed"}})),
              HasSubstr("snow.sink.operation.fixed is required because "
                        "snow.sink.operation.mode is fixed"));
}

TEST(SinkSettingsTest, UnknownEnumValueListsTheAllowedOnes) {
  const std::string m = Refusal(With(Base(), {{"snow.sink.operation.fixed", "MERGE"}}));
  EXPECT_THAT(
      m, AllOf(HasSubstr("snow.sink.operation.fixed"), HasSubstr("CREATE"), HasSubstr("UPSERT")));
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.null.behavior", "skip"}})),
              AllOf(HasSubstr("snow.sink.null.behavior"), HasSubstr("omit, clear, reject")));
}

TEST(SinkSettingsTest, AllowlistAndDenylistTogetherAreRefused) {
  EXPECT_THAT(Refusal(With(
                  Base(), {{"snow.sink.field.allowlist", "a"}, {"snow.sink.field.denylist", "b"}})),
              HasSubstr("snow.sink.field.allowlist and snow.sink.field.denylist are both set"));
}

TEST(SinkSettingsTest, MaxInFlightBoundedByHttpConcurrency) {
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.max.in.flight", "16"}})),
              HasSubstr("snow.sink.max.in.flight (16) must not exceed "
                        "snow.http.max.concurrent.requests (8)"));
  EXPECT_TRUE(Load(With(Base(), {{"snow.sink.max.in.flight", "16"},
                                 {"snow.http.max.concurrent.requests", "16"}}))
                  .ok());
}

TEST(SinkSettingsTest, CorrelationLookupNeedsAUsableField) {
  const Values lookup =
      With(Base(), {{"snow.sink.create.ambiguous.behavior", "correlation_lookup"}});
  EXPECT_THAT(Refusal(lookup), HasSubstr("snow.sink.correlation.field is required because "
                                         "snow.sink.create.ambiguous.behavior is "
                                         "correlation_lookup"));
  EXPECT_THAT(Refusal(With(lookup, {{"snow.sink.correlation.field", "sys_id"}})),
              HasSubstr("is a system field"));
  EXPECT_THAT(Refusal(With(lookup, {{"snow.sink.correlation.field", "u_ext"},
                                    {"snow.sink.field.denylist", "u_ext"}})),
              HasSubstr("'u_ext' is removed by snow.sink.field.denylist"));
  EXPECT_THAT(Refusal(With(lookup, {{"snow.sink.correlation.field", "u_ext"},
                                    {"snow.sink.field.allowlist", "short_description"}})),
              HasSubstr("'u_ext' is removed by snow.sink.field.allowlist"));
  EXPECT_THAT(Refusal(With(lookup, {{"snow.sink.correlation.field", "u_ext^ORsys_id!=x"}})),
              HasSubstr("is not a column name"));
}

TEST(SinkSettingsTest, OutputTopicsMustNotBeConsumed) {
  const std::string m = Refusal(With(Base(), {{"snow.sink.topics", "commands,dlq"},
                                              {"errors.deadletterqueue.topic.name", "dlq"},
                                              {"snow.sink.reporter.error.topic", "commands"}}));
  EXPECT_THAT(m, HasSubstr("errors.deadletterqueue.topic.name 'dlq' is also in snow.sink.topics"));
  EXPECT_THAT(m, HasSubstr("snow.sink.reporter.error.topic 'commands' is also in"));
  EXPECT_THAT(Refusal(With(Base(), {{"errors.deadletterqueue.topic.name", "dead letters"}})),
              HasSubstr("is not a Kafka topic name"));
}

TEST(SinkSettingsTest, RenameListIsChecked) {
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.field.rename", "a:b,c"}})),
              HasSubstr("'c' is not a from:to pair"));
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.field.rename", "a:b,:c"}})),
              HasSubstr("needs a name on both sides"));
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.field.rename", "a:b,a:c"}})),
              HasSubstr("'a' is renamed more than once"));
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.field.rename", "a:c,b:c"}})),
              HasSubstr("more than one field is renamed to 'c'"));
}

TEST(SinkSettingsTest, OneHeaderCannotNameTableAndOperation) {
  EXPECT_THAT(Refusal(With(Base(), {{"snow.sink.routing.mode", "header"},
                                    {"snow.sink.table.allowlist", "incident"},
                                    {"snow.sink.operation.header", "snow.table"}})),
              HasSubstr("one header cannot name both the table and the operation"));
}

TEST(SinkSettingsTest, EveryProblemIsReportedAtOnce) {
  const std::string m = Refusal(With(Base(), {{"snow.sink.routing.mode", "header"},
                                              {"snow.sink.operation.mode", "fixed"},
                                              {"snow.sink.max.in.flight", "9"}}));
  EXPECT_THAT(m, HasSubstr("snow.sink.table.allowlist is required"));
  EXPECT_THAT(m, HasSubstr("snow.sink.operation.fixed is required"));
  EXPECT_THAT(m, HasSubstr("snow.sink.max.in.flight (9)"));
}

TEST(SinkSettingsTest, OperationNames) {
  EXPECT_EQ(OperationName(Operation::kCreate), "CREATE");
  EXPECT_EQ(OperationName(Operation::kPatch), "PATCH");
  EXPECT_EQ(OperationName(Operation::kPut), "PUT");
  EXPECT_EQ(OperationName(Operation::kDelete), "DELETE");
}

}  // namespace
}  // namespace snowcar::sink
