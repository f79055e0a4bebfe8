// SPDX-License-Identifier: Apache-2.0
// The source's entries in the option table: every key of the reference, its default, its
// bounds, and the per-value checks the config loader runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "settings_test_util.h"
#include "snowcar/config/options.h"

namespace snowcar::source {
namespace {

using testing::BaseKeys;
using ::testing::HasSubstr;

const config::OptionSpec& Spec(std::string_view key) {
  const config::OptionSpec* spec = config::FindOption(key);
  EXPECT_NE(spec, nullptr) << key;
  static const config::OptionSpec kNone;
  return spec == nullptr ? kNone : *spec;
}

// The config layer's answer for `keys` (message of the error, "" when it loads).
std::string LoadError(const std::map<std::string, std::string>& keys) {
  auto config = config::Config::FromMap(keys);
  return config.ok() ? "" : config.status().message();
}

TEST(SourceOptionsTest, EveryReferenceKeyIsDeclaredInTheSourceGroup) {
  for (std::string_view key : {"snow.tables",
                               "snow.table.a.name",
                               "snow.table.a.topic",
                               "snow.table.a.start.timestamp",
                               "snow.table.a.timestamp.field",
                               "snow.table.a.sys.id.field",
                               "snow.table.a.query",
                               "snow.table.a.fields",
                               "snow.table.a.display.value",
                               "snow.table.a.exclude.reference.link",
                               "snow.table.a.query.domain",
                               "snow.table.a.batch.size",
                               "snow.table.a.poll.interval.ms",
                               "snow.source.poll.interval.ms",
                               "snow.source.batch.size",
                               "snow.source.overlap.seconds",
                               "snow.source.safety.lag.seconds",
                               "snow.source.dedup.window.records",
                               "snow.source.bad.row.behavior",
                               "snow.source.startup.probe",
                               "snow.source.schema.mode",
                               "snow.source.emit.envelope"}) {
    EXPECT_EQ(Spec(key).group, "Source") << key;
    EXPECT_FALSE(Spec(key).doc.empty()) << key;
  }
}

TEST(SourceOptionsTest, FamilyMembersResolveToTheirOwnEntry) {
  // .query and .query.domain, .timestamp.field and .start.timestamp must not be confused.
  EXPECT_EQ(Spec("snow.table.inc.query").name, "snow.table.<alias>.query");
  EXPECT_EQ(Spec("snow.table.inc.query.domain").name, "snow.table.<alias>.query.domain");
  EXPECT_EQ(Spec("snow.table.inc.timestamp.field").name, "snow.table.<alias>.timestamp.field");
  EXPECT_EQ(Spec("snow.table.inc.start.timestamp").name, "snow.table.<alias>.start.timestamp");
  EXPECT_EQ(Spec("snow.table.inc.sys.id.field").name, "snow.table.<alias>.sys.id.field");
  EXPECT_EQ(Spec("snow.tables").name, "snow.tables");
}

TEST(SourceOptionsTest, DefaultsAndBoundsAreTheReferenceOnes) {
  auto config = config::Config::FromMap(BaseKeys());
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->GetInt("snow.source.poll.interval.ms"), 5000);
  EXPECT_EQ(config->GetInt("snow.source.batch.size"), 5000);
  EXPECT_EQ(config->GetInt("snow.source.overlap.seconds"), 2);
  EXPECT_EQ(config->GetInt("snow.source.safety.lag.seconds"), 1);
  EXPECT_EQ(config->GetInt("snow.source.dedup.window.records"), 50000);
  EXPECT_EQ(config->GetString("snow.source.bad.row.behavior"), "fail");
  EXPECT_TRUE(config->GetBool("snow.source.startup.probe"));
  EXPECT_EQ(config->GetString("snow.source.schema.mode"), "schemaless");
  EXPECT_FALSE(config->GetBool("snow.source.emit.envelope"));
  EXPECT_EQ(config->GetString("snow.table.inc.start.timestamp"), "1970-01-01 00:00:00");
  EXPECT_EQ(config->GetString("snow.table.inc.timestamp.field"), "sys_updated_on");
  EXPECT_EQ(config->GetString("snow.table.inc.sys.id.field"), "sys_id");
  EXPECT_EQ(config->GetString("snow.table.inc.display.value"), "false");
  EXPECT_TRUE(config->GetBool("snow.table.inc.exclude.reference.link"));
  EXPECT_TRUE(config->GetBool("snow.table.inc.query.domain"));
  EXPECT_EQ(Spec("snow.source.batch.size").min, 1);
  EXPECT_EQ(Spec("snow.source.batch.size").max, 50000);
  EXPECT_EQ(Spec("snow.table.<alias>.batch.size").max, 50000);
}

TEST(SourceOptionsTest, BatchSizeOutOfRangeIsRefused) {
  auto keys = BaseKeys();
  keys["snow.source.batch.size"] = "50001";
  EXPECT_THAT(LoadError(keys), HasSubstr("snow.source.batch.size: '50001'"));
  keys = BaseKeys();
  keys["snow.table.inc.batch.size"] = "0";
  EXPECT_THAT(LoadError(keys), HasSubstr("snow.table.inc.batch.size: '0'"));
}

TEST(SourceOptionsTest, EnumsListWhatIsAllowed) {
  auto keys = BaseKeys();
  keys["snow.source.bad.row.behavior"] = "ignore";
  keys["snow.table.inc.display.value"] = "maybe";
  const std::string error = LoadError(keys);
  EXPECT_THAT(error, HasSubstr("snow.source.bad.row.behavior: 'ignore'"));
  EXPECT_THAT(error, HasSubstr("fail, skip"));
  EXPECT_THAT(error, HasSubstr("snow.table.inc.display.value: 'maybe'"));
  keys = BaseKeys();
  keys["snow.source.schema.mode"] = "STRINGS";  // case-insensitive
  keys["snow.table.inc.display.value"] = "All";
  EXPECT_EQ(LoadError(keys), "");
}

TEST(SourceOptionsTest, AliasListMustHoldValidUniqueAliases) {
  auto keys = BaseKeys();
  keys["snow.tables"] = "inc,Chg";
  EXPECT_THAT(LoadError(keys), HasSubstr("snow.tables: 'inc,Chg' holds the alias 'Chg'"));
  keys["snow.tables"] = "inc,a.b";
  EXPECT_THAT(LoadError(keys), HasSubstr("holds the alias 'a.b'"));
  keys["snow.tables"] = "inc, inc";
  EXPECT_THAT(LoadError(keys), HasSubstr("lists the alias 'inc' twice"));
}

TEST(SourceOptionsTest, QueryWithOrderByIsRefused) {
  auto keys = BaseKeys();
  keys["snow.table.inc.query"] = "active=true^ORDERBYnumber";
  EXPECT_THAT(LoadError(keys),
              HasSubstr("snow.table.inc.query: 'active=true^ORDERBYnumber' contains "
                        "'ORDERBYnumber'; ORDERBY is not allowed"));
  keys["snow.table.inc.query"] = "ORDERBYDESCnumber";
  EXPECT_THAT(LoadError(keys), HasSubstr("ORDERBY is not allowed"));
  keys["snow.table.inc.query"] = "active=true^NQORDERBYnumber";
  EXPECT_THAT(LoadError(keys), HasSubstr("ORDERBY is not allowed"));
  keys["snow.table.inc.query"] = "active=true ^NQ ORDERBYnumber";
  EXPECT_THAT(LoadError(keys), HasSubstr("ORDERBY is not allowed"));
  // A run of NQ prefixes is a run of empty branches: the ORDERBY after them still applies
  // (found by the keyset fuzzer in CI).
  keys["snow.table.inc.query"] = "active=true^NQNQORDERBYnumber";
  EXPECT_THAT(LoadError(keys), HasSubstr("ORDERBY is not allowed"));
  keys["snow.table.inc.query"] = "active=true^NQ NQ ORDERBYnumber";
  EXPECT_THAT(LoadError(keys), HasSubstr("ORDERBY is not allowed"));
  // "OR DERBYx" is normalized to "ORDERBYx" (found by the keyset fuzzer in CI).
  keys["snow.table.inc.query"] = "active=true^ OR  DERBYO=1";
  EXPECT_THAT(LoadError(keys), HasSubstr("reads as ORDERBY once its blanks are dropped"));
  keys["snow.table.inc.query"] = "active=true^ORDERBY_date=1";
  EXPECT_THAT(LoadError(keys), HasSubstr("ORDERBY is not allowed"));
  keys["snow.table.inc.query"] = "active=true^OR derby=1^ORpriority=1^NQstate=2";
  EXPECT_EQ(LoadError(keys), "");
}

// Normalizing drops empty terms, so "a^^b" would be sent as "a^b" (found by the fuzzer).
TEST(SourceOptionsTest, QueryWithDoubledCaretIsRefused) {
  auto keys = BaseKeys();
  keys["snow.table.inc.query"] = "short_description=a^^ORstate=2";
  EXPECT_THAT(LoadError(keys), HasSubstr("snow.table.inc.query: 'short_description=a^^ORstate=2' "
                                         "contains '^^' at offset 19"));
}

TEST(SourceOptionsTest, TimestampFieldMayNotBeDotWalked) {
  auto keys = BaseKeys();
  keys["snow.table.inc.timestamp.field"] = "caller_id.sys_updated_on";
  EXPECT_THAT(LoadError(keys),
              HasSubstr("snow.table.inc.timestamp.field: 'caller_id.sys_updated_on' is "
                        "dot-walked"));
  keys = BaseKeys();
  keys["snow.table.inc.sys.id.field"] = "sys^id";
  EXPECT_THAT(LoadError(keys), HasSubstr("snow.table.inc.sys.id.field: 'sys^id' is not a field"));
  keys = BaseKeys();
  keys["snow.table.inc.fields"] = "sys_id,caller_id.name";
  EXPECT_THAT(LoadError(keys), HasSubstr("holds 'caller_id.name'"));
}

TEST(SourceOptionsTest, StartTimestampMustBeUtcDateTime) {
  auto keys = BaseKeys();
  keys["snow.table.inc.start.timestamp"] = "2024-02-30 00:00:00";
  EXPECT_THAT(LoadError(keys),
              HasSubstr("snow.table.inc.start.timestamp: '2024-02-30 00:00:00' is not a UTC "
                        "date-time"));
  keys["snow.table.inc.start.timestamp"] = "2024-02-03T00:00:00Z";
  EXPECT_THAT(LoadError(keys), HasSubstr("YYYY-MM-DD HH:MM:SS"));
}

}  // namespace
}  // namespace snowcar::source
