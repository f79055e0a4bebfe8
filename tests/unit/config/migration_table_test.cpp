// SPDX-License-Identifier: Apache-2.0
// The migration table in docs/configuration.md: every reference connector key is one the
// option table accepts, and each row's status follows the table.
#include "config/migration_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "snowcar/config/options.h"

namespace snowcar::config {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MigrationTableTest, EveryReferenceKeyIsDeclaredUnderItsOwnName) {
  std::set<std::string_view> seen;
  for (const ReferenceKey& key : ReferenceKeys()) {
    EXPECT_TRUE(seen.insert(key.name).second) << key.name << " listed twice";
    const OptionSpec* spec = FindOption(key.name);
    ASSERT_NE(spec, nullptr) << key.name << " is not in the option table";
    EXPECT_EQ(spec->name, key.name) << key.name << " only matches the family " << spec->name;
    EXPECT_FALSE(spec->ignored) << key.name << " is a reference key but has no effect";
  }
  EXPECT_GT(seen.size(), 70u);
}

TEST(MigrationTableTest, StatusComesFromTheOptionTable) {
  const std::string md = RenderMigrationTable();
  EXPECT_THAT(md, HasSubstr("## Migrating from the Kafka Connect connectors"));
  EXPECT_THAT(md, HasSubstr("| `snow.url` | accepted |  |\n"));
  EXPECT_THAT(md, HasSubstr("| `snow.source.dedup.window.records` | accepted, with a note |"));
  EXPECT_THAT(md, HasSubstr("| `topics` | accepted, with a note | Another name for "
                            "`snow.sink.topics`"));
  EXPECT_THAT(md, HasSubstr("| `tasks.max` | not applicable |"));
  EXPECT_THAT(md, HasSubstr("| `exactly.once.support` | accepted, with a note | Another name for "
                            "`exactly.once.source.support`"));
  EXPECT_THAT(md, Not(HasSubstr("**refused**")));
  // Every alias and ignored entry appears, and no sidecar-only key is presented as the
  // reference's.
  for (const OptionSpec& spec : Options()) {
    if (spec.ignored || !spec.alias_of.empty()) {
      EXPECT_THAT(md, HasSubstr("| `" + std::string(spec.name) + "` |")) << spec.name;
    }
  }
  EXPECT_THAT(md, Not(HasSubstr("| `state.dir` |")));
  EXPECT_THAT(md, Not(HasSubstr("| `socket.path` |")));
}

// Confluent's connectors get their own table, built from the option table's section for them,
// and the notes say how to keep a sink's offsets and what errors.tolerance=all becomes.
TEST(MigrationTableTest, ListsConfluentKeysAndMigrationNotes) {
  const std::string md = RenderMigrationTable();
  EXPECT_THAT(md, HasSubstr("### Confluent's ServiceNow connectors"));
  size_t confluent = 0;
  for (const OptionSpec& spec : Options()) {
    if (spec.group != "Keys of Confluent's ServiceNow connectors") continue;
    ++confluent;
    EXPECT_THAT(md, HasSubstr("| `" + std::string(spec.name) + "` |")) << spec.name;
  }
  for (const std::string_view key :
       {"servicenow.url", "servicenow.user", "servicenow.password", "servicenow.table",
        "servicenow.since", "kafka.topic", "batch.max.rows", "poll.interval.s", "retry.max.times",
        "proxy.url", "reporter.error.topic.name", "reporter.result.topic.name"}) {
    const OptionSpec* spec = FindOption(key);
    ASSERT_NE(spec, nullptr) << key;
    EXPECT_EQ(spec->name, key) << key << " only matches " << spec->name;
  }
  EXPECT_GE(confluent, 15u);
  EXPECT_THAT(md, HasSubstr("| `servicenow.url` | accepted, with a note | Another name for "
                            "`snow.url`. |"));
  EXPECT_THAT(md, HasSubstr("| `kafka.topic` | accepted, rewritten |"));
  EXPECT_THAT(md, HasSubstr("`kafka.group.id=connect-<name>`"));
  EXPECT_THAT(md, HasSubstr("`behavior.on.api.errors=log`"));
}

TEST(MigrationTableTest, IsPartOfTheGeneratedReference) {
  EXPECT_THAT(RenderMarkdownReference(), HasSubstr(RenderMigrationTable().substr(0, 200)));
}

}  // namespace
}  // namespace snowcar::config
