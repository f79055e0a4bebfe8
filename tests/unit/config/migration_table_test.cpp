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
  EXPECT_THAT(md, HasSubstr("| `exactly.once.source.support` | not applicable | "));
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

TEST(MigrationTableTest, IsPartOfTheGeneratedReference) {
  EXPECT_THAT(RenderMarkdownReference(), HasSubstr(RenderMigrationTable().substr(0, 200)));
}

}  // namespace
}  // namespace snowcar::config
