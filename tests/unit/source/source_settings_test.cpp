// SPDX-License-Identifier: Apache-2.0
// SourceSettings::FromConfig: values, defaults and the checks spanning several keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "settings_test_util.h"

namespace snowcar::source {
namespace {

using testing::BaseKeys;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Settings;

TEST(SourceSettingsTest, MinimalConfigGetsTheDefaults) {
  auto s = Settings(BaseKeys());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->instance, "acme.service-now.com");  // lower-cased, no port, no path
  EXPECT_EQ(s->overlap_seconds, 2);
  EXPECT_EQ(s->safety_lag_seconds, 1);
  EXPECT_EQ(s->dedup_window_records, 50000u);
  EXPECT_EQ(s->bad_row, BadRowBehavior::kFail);
  EXPECT_TRUE(s->startup_probe);
  EXPECT_EQ(s->schema_mode, SchemaMode::kSchemaless);
  EXPECT_FALSE(s->emit_envelope);
  EXPECT_FALSE(s->emit_tombstones);
  ASSERT_EQ(s->tables.size(), 1u);
  const TableSettings& t = s->tables[0];
  EXPECT_EQ(t.deletes, DeleteCapture::kNone);
  EXPECT_EQ(t.alias, "inc");
  EXPECT_EQ(t.name, "incident");
  EXPECT_EQ(t.topic, "sn.incident");
  EXPECT_EQ(t.start_ts, 0);
  EXPECT_EQ(t.timestamp_field, "sys_updated_on");
  EXPECT_EQ(t.sys_id_field, "sys_id");
  EXPECT_EQ(t.base_query, "");
  EXPECT_TRUE(t.fields.empty());
  EXPECT_EQ(t.display_value, DisplayValue::kFalse);
  EXPECT_TRUE(t.exclude_reference_link);
  EXPECT_TRUE(t.query_domain);
  EXPECT_EQ(t.batch_size, 5000);
  EXPECT_EQ(t.poll_interval_ms, 5000);
}

TEST(SourceSettingsTest, EveryKeyIsRead) {
  auto keys = BaseKeys();
  keys["snow.url"] = "http://127.0.0.1:40123";
  keys["snow.tables"] = "inc, chg_1";
  keys["snow.table.chg_1.name"] = "change_request";
  keys["snow.table.chg_1.topic"] = "sn.change";
  keys["snow.table.chg_1.start.timestamp"] = "2024-01-31 12:00:01";
  keys["snow.table.chg_1.timestamp.field"] = "sys_created_on";
  keys["snow.table.chg_1.sys.id.field"] = "chg_sys_id";
  keys["snow.table.chg_1.query"] = "  active=true ^ priority<=2  ";
  keys["snow.table.chg_1.fields"] = "number,chg_sys_id,sys_created_on,number";
  keys["snow.table.chg_1.display.value"] = "true";
  keys["snow.table.chg_1.exclude.reference.link"] = "false";
  keys["snow.table.chg_1.query.domain"] = "false";
  keys["snow.table.chg_1.batch.size"] = "100";
  keys["snow.table.chg_1.poll.interval.ms"] = "250";
  keys["snow.source.batch.size"] = "700";
  keys["snow.source.poll.interval.ms"] = "900";
  keys["snow.source.overlap.seconds"] = "0";
  keys["snow.source.safety.lag.seconds"] = "3";
  keys["snow.source.dedup.window.records"] = "10";
  keys["snow.source.bad.row.behavior"] = "SKIP";
  keys["snow.source.startup.probe"] = "false";
  keys["snow.source.schema.mode"] = "strings";
  keys["snow.source.emit.envelope"] = "true";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->instance, "127.0.0.1");
  EXPECT_EQ(s->overlap_seconds, 0);
  EXPECT_EQ(s->safety_lag_seconds, 3);
  EXPECT_EQ(s->dedup_window_records, 10u);
  EXPECT_EQ(s->bad_row, BadRowBehavior::kSkip);
  EXPECT_FALSE(s->startup_probe);
  EXPECT_EQ(s->schema_mode, SchemaMode::kStrings);
  EXPECT_TRUE(s->emit_envelope);
  ASSERT_EQ(s->tables.size(), 2u);
  // Globals apply to the table without its own values.
  EXPECT_EQ(s->tables[0].batch_size, 700);
  EXPECT_EQ(s->tables[0].poll_interval_ms, 900);
  const TableSettings& t = s->tables[1];
  EXPECT_EQ(t.alias, "chg_1");
  EXPECT_EQ(t.name, "change_request");
  EXPECT_EQ(t.start_ts, 1706702401);
  EXPECT_EQ(t.timestamp_field, "sys_created_on");
  EXPECT_EQ(t.sys_id_field, "chg_sys_id");
  EXPECT_EQ(t.base_query, "active=true^priority<=2");
  EXPECT_THAT(t.fields, ElementsAre("number", "chg_sys_id", "sys_created_on", "sys_mod_count"));
  EXPECT_EQ(t.display_value, DisplayValue::kTrue);
  EXPECT_FALSE(t.exclude_reference_link);
  EXPECT_FALSE(t.query_domain);
  EXPECT_EQ(t.batch_size, 100);
  EXPECT_EQ(t.poll_interval_ms, 250);
}

TEST(SourceSettingsTest, EmptyStartTimestampMeansTheEpoch) {
  auto keys = BaseKeys();
  keys["snow.table.inc.start.timestamp"] = "";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tables[0].start_ts, 0);
}

TEST(SourceSettingsTest, FieldsKeepSysModCountWhenGiven) {
  auto keys = BaseKeys();
  keys["snow.table.inc.fields"] = "sys_mod_count,sys_id,sys_updated_on";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_THAT(s->tables[0].fields, ElementsAre("sys_mod_count", "sys_id", "sys_updated_on"));
}

TEST(SourceSettingsTest, FieldsWithoutTheCursorFieldsAreRefused) {
  auto keys = BaseKeys();
  keys["snow.table.inc.fields"] = "number,short_description";
  auto s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("snow.table.inc.fields: must include the id field 'sys_id' and the "
                        "timestamp field 'sys_updated_on', which the cursor reads (missing: "
                        "sys_id, sys_updated_on)"));
}

TEST(SourceSettingsTest, AdaptivePollingIsOffUnlessSetAndNeverBelowThePollInterval) {
  auto keys = BaseKeys();
  auto off = Settings(keys);
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->tables.at(0).poll_interval_max_ms, 0);
  keys["snow.table.inc.poll.interval.max.ms"] = "60000";
  auto on = Settings(keys);
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_EQ(on->tables.at(0).poll_interval_max_ms, 60000);
  keys["snow.table.inc.poll.interval.max.ms"] = "1000";  // the default interval is 5000
  auto below = Settings(keys);
  ASSERT_FALSE(below.ok());
  EXPECT_THAT(below.status().message(),
              HasSubstr("snow.table.inc.poll.interval.max.ms (1000) is below the table's poll "
                        "interval (5000 ms)"));
}

TEST(SourceSettingsTest, ListedAliasNeedsNameAndTopic) {
  auto keys = BaseKeys();
  keys["snow.tables"] = "inc,chg";
  auto s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("(2 problems)"));
  EXPECT_THAT(s.status().message(),
              HasSubstr("snow.table.chg.name is required because 'chg' is listed in snow.tables"));
  EXPECT_THAT(s.status().message(),
              HasSubstr("snow.table.chg.topic is required because 'chg' is listed in "
                        "snow.tables"));
}

TEST(SourceSettingsTest, KeysOfAnUnlistedAliasAreRefused) {
  auto keys = BaseKeys();
  keys["snow.table.chg.name"] = "change_request";
  keys["snow.table.chg.topic"] = "sn.change";
  keys["snow.table.Bad.Alias.query"] = "active=true";
  auto s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("snow.table.chg.name: the alias 'chg' is not listed in snow.tables "
                        "(listed: inc); add it there or remove its keys"));
  EXPECT_THAT(s.status().message(), HasSubstr("the alias 'Bad.Alias' is not listed"));
}

TEST(SourceSettingsTest, NoTablesIsRefused) {
  auto keys = BaseKeys();
  keys.erase("snow.tables");
  auto s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("snow.tables lists no table"));
  // The orphaned inc keys are reported too: every problem at once.
  EXPECT_THAT(s.status().message(), HasSubstr("the alias 'inc' is not listed in snow.tables"));
}

TEST(SourceSettingsTest, TypedSchemaModeWritesJsonTypedUnlessAFormatIsGiven) {
  auto keys = BaseKeys();
  keys["snow.source.schema.mode"] = "typed";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->schema_mode, SchemaMode::kTyped);
  EXPECT_EQ(s->value_format, RecordFormat::kJsonTyped);
  EXPECT_EQ(s->key_format, RecordFormat::kString);
  keys["value.format"] = "avro";
  keys["key.format"] = "avro";
  keys["schema.registry.url"] = "http://127.0.0.1:8081";  // avro needs a registry
  s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->value_format, RecordFormat::kAvro);
  EXPECT_EQ(s->key_format, RecordFormat::kAvro);
}

TEST(SourceSettingsTest, ATypedFormatMakesTypedValuesUnlessTheModeSaysOtherwise) {
  auto keys = BaseKeys();
  keys["value.format"] = "avro";  // what value.converter=...AvroConverter becomes
  keys["schema.registry.url"] = "http://127.0.0.1:8081";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->schema_mode, SchemaMode::kTyped);
  keys["snow.source.schema.mode"] = "strings";
  s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("value.format=avro writes typed values, which "
                                              "snow.source.schema.mode=strings does not make"));
  keys["snow.source.schema.mode"] = "typed";
  keys["value.format"] = "json";
  s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("choose value.format=json_typed, avro, json_schema or protobuf"));
  keys["value.format"] = "json_schema";
  keys["snow.source.emit.envelope"] = "true";
  s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("wraps untyped JSON only"));
}

TEST(SourceSettingsTest, SameFieldForIdAndTimestampIsRefused) {
  auto keys = BaseKeys();
  keys["snow.table.inc.sys.id.field"] = "sys_updated_on";
  auto s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("snow.table.inc.timestamp.field and snow.table.inc.sys.id.field both "
                        "name 'sys_updated_on'"));
}

TEST(SourceSettingsTest, ErrorsNeverShowSecrets) {
  auto keys = BaseKeys();
  keys["snow.tables"] = "inc,x";
  auto s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), Not(HasSubstr("pw-not-shown")));
}

TEST(SourceSettingsTest, DeletesFromTheAuditTrailAndTombstones) {
  auto keys = BaseKeys();
  keys["snow.table.inc.deletes"] = "audit";
  keys["snow.source.emit.tombstones"] = "true";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tables[0].deletes, DeleteCapture::kAudit);
  EXPECT_TRUE(s->emit_tombstones);
  keys["snow.table.inc.deletes"] = "audit+reconcile";
  s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tables[0].deletes, DeleteCapture::kAuditReconcile);
  keys["snow.table.inc.deletes"] = "everything";
  EXPECT_THAT(Settings(keys).status().message(), HasSubstr("snow.table.inc.deletes"));
}

// Every delete mode writes its records in the table's typed encoding (typed_deletes.h): no
// combination of a delete mode with a typed value or key format is refused.
TEST(SourceSettingsTest, EveryDeleteModeIsAcceptedWithEveryTypedFormat) {
  for (const char* format : {"json_typed", "avro", "json_schema"}) {
    for (const char* mode : {"audit", "reconcile", "audit+reconcile"}) {
      auto keys = BaseKeys();
      keys["value.format"] = format;
      keys["key.format"] = format;
      keys["schema.registry.url"] = "http://127.0.0.1:8081";
      keys["snow.table.inc.deletes"] = mode;
      keys["snow.table.inc.deletes.last.row"] = std::string(mode) == "reconcile" ? "false" : "true";
      auto s = Settings(keys);
      ASSERT_TRUE(s.ok()) << format << " with " << mode << ": " << s.status().ToString();
      EXPECT_EQ(s->schema_mode, SchemaMode::kTyped) << format;
    }
  }
  // The typed mode alone (json_typed), and a typed key format alone.
  auto keys = BaseKeys();
  keys["snow.source.schema.mode"] = "typed";
  keys["snow.table.inc.deletes"] = "reconcile";
  EXPECT_TRUE(Settings(keys).ok());
  keys = BaseKeys();
  keys["key.format"] = "avro";
  keys["schema.registry.url"] = "http://127.0.0.1:8081";
  keys["snow.table.inc.deletes"] = "audit+reconcile";
  EXPECT_TRUE(Settings(keys).ok());
}

TEST(SourceSettingsTest, TheLastRowNeedsTheAuditTrail) {
  auto keys = BaseKeys();
  keys["snow.table.inc.deletes.last.row"] = "true";
  keys["snow.table.inc.deletes"] = "audit";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->tables[0].deletes_last_row);
  keys["snow.table.inc.deletes"] = "audit+reconcile";
  ASSERT_TRUE(Settings(keys).ok());
  for (const char* mode : {"none", "reconcile"}) {
    keys["snow.table.inc.deletes"] = mode;
    auto refused = Settings(keys);
    ASSERT_FALSE(refused.ok()) << mode;
    EXPECT_THAT(refused.status().message(), HasSubstr("snow.table.inc.deletes.last.row=true needs "
                                                      "deletes=audit"));
    EXPECT_THAT(refused.status().message(), HasSubstr(std::string("is '") + mode + "'"));
  }
  keys.erase("snow.table.inc.deletes.last.row");
  s = Settings(keys);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->tables[0].deletes_last_row);
}

// topic.creation.* goes through the option table (typed keys and the group family) and is
// parsed into the rules the topic preparer uses; a Connect source file's keys load as given.
TEST(SourceSettingsTest, TopicCreationKeysBecomeTheRules) {
  auto keys = BaseKeys();
  EXPECT_FALSE(Settings(keys)->topic_creation.active());
  keys["topic.creation.default.replication.factor"] = "3";
  keys["topic.creation.default.partitions"] = "6";
  keys["topic.creation.default.cleanup.policy"] = "compact";
  keys["topic.creation.groups"] = "big";
  keys["topic.creation.big.include"] = "sn\\.incident";
  keys["topic.creation.big.partitions"] = "12";
  auto s = Settings(keys);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(s->topic_creation.active());
  EXPECT_EQ(s->topic_creation.For("sn.incident")->partitions, 12);
  EXPECT_EQ(s->topic_creation.For("sn.problem")->partitions, 6);
  EXPECT_EQ(s->topic_creation.For("sn.problem")->configs.at("cleanup.policy"), "compact");

  keys["topic.creation.enable"] = "false";
  EXPECT_FALSE(Settings(keys)->topic_creation.active());
}

TEST(SourceSettingsTest, TopicCreationProblemsAreListedWithTheOthers) {
  auto keys = BaseKeys();
  keys["topic.creation.default.partitions"] = "6";
  keys["topic.creation.groups"] = "g";
  auto s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("(2 problems)"));
  EXPECT_THAT(s.status().message(),
              HasSubstr("\n  - topic.creation.default.replication.factor: is required"));
  EXPECT_THAT(s.status().message(), HasSubstr("\n  - topic.creation.g.include: is required"));

  // Zero is caught by the option table already (no topic has zero partitions).
  keys = BaseKeys();
  keys["topic.creation.default.partitions"] = "0";
  keys["topic.creation.default.replication.factor"] = "1";
  s = Settings(keys);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("topic.creation.default.partitions"));
  EXPECT_THAT(s.status().message(), HasSubstr("must be -1 (the broker's default) or at least 1"));
}

}  // namespace
}  // namespace snowcar::source
