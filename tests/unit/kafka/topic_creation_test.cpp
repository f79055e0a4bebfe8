// SPDX-License-Identifier: Apache-2.0
// topic.creation (KIP-158): when it is on, which group a topic falls in, what it inherits,
// and the refusals that name the key.
#include "snowcar/kafka/topic_creation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace snowcar::kafka {
namespace {

using ::testing::HasSubstr;
using Keys = std::map<std::string, std::string>;

TopicCreation Rules(const Keys& keys, bool enable = true) {
  auto parsed = TopicCreation::Parse(enable, keys);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? *parsed : TopicCreation();
}

std::string Problems(const Keys& keys) {
  auto parsed = TopicCreation::Parse(true, keys);
  EXPECT_FALSE(parsed.ok());
  return parsed.ok() ? "" : parsed.status().message();
}

TEST(TopicCreationTest, OffWithoutBothDefaults) {
  EXPECT_FALSE(Rules({}).active());
  EXPECT_FALSE(Rules({}).For("sn.incident").has_value());
  // Groups alone do not turn it on, as in Connect (the defaults do).
  EXPECT_FALSE(Rules({{"groups", "c"}, {"c.include", "sn\\..*"}}).active());
}

TEST(TopicCreationTest, EnableFalseKeepsItOffEvenWithBothDefaults) {
  const TopicCreation rules =
      Rules({{"default.replication.factor", "3"}, {"default.partitions", "6"}}, false);
  EXPECT_FALSE(rules.active());
  EXPECT_FALSE(rules.For("sn.incident").has_value());
}

TEST(TopicCreationTest, BothDefaultsTurnItOnForEveryTopic) {
  const TopicCreation rules = Rules({{"enable", "true"},
                                     {"default.replication.factor", "3"},
                                     {"default.partitions", "6"},
                                     {"default.cleanup.policy", "compact"},
                                     {"default.retention.ms", "86400000"}});
  ASSERT_TRUE(rules.active());
  const auto spec = rules.For("sn.incident");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->name, "sn.incident");
  EXPECT_EQ(spec->group, "default");
  EXPECT_EQ(spec->partitions, 6);
  EXPECT_EQ(spec->replication_factor, 3);
  EXPECT_EQ(spec->configs, (std::map<std::string, std::string>{{"cleanup.policy", "compact"},
                                                               {"retention.ms", "86400000"}}));
}

TEST(TopicCreationTest, MinusOneMeansTheBrokersDefault) {
  const auto spec =
      Rules({{"default.replication.factor", "-1"}, {"default.partitions", "-1"}}).For("t");
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->partitions, -1);
  EXPECT_EQ(spec->replication_factor, -1);
}

TEST(TopicCreationTest, FirstListedGroupThatIncludesAndDoesNotExcludeWins) {
  const TopicCreation rules = Rules({{"default.replication.factor", "3"},
                                     {"default.partitions", "6"},
                                     {"default.cleanup.policy", "delete"},
                                     {"groups", "compacted, audit"},
                                     {"compacted.include", "sn\\..*, other"},
                                     {"compacted.exclude", "sn\\.audit\\..*"},
                                     {"compacted.cleanup.policy", "compact"},
                                     {"compacted.partitions", "1"},
                                     {"audit.include", ".*audit.*"},
                                     {"audit.replication.factor", "2"},
                                     {"audit.retention.ms", "604800000"}});
  const auto incident = rules.For("sn.incident");
  ASSERT_TRUE(incident.has_value());
  EXPECT_EQ(incident->group, "compacted");
  EXPECT_EQ(incident->partitions, 1);
  EXPECT_EQ(incident->replication_factor, 3);  // not given: the default group's
  EXPECT_EQ(incident->configs, (std::map<std::string, std::string>{{"cleanup.policy", "compact"}}));

  // Excluded from `compacted`, so the next group decides.
  const auto audit = rules.For("sn.audit.incident");
  ASSERT_TRUE(audit.has_value());
  EXPECT_EQ(audit->group, "audit");
  EXPECT_EQ(audit->partitions, 6);
  EXPECT_EQ(audit->replication_factor, 2);
  // A group does not inherit the default group's topic configs.
  EXPECT_EQ(audit->configs, (std::map<std::string, std::string>{{"retention.ms", "604800000"}}));

  const auto other = rules.For("other");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->group, "compacted");

  const auto rest = rules.For("elsewhere");
  ASSERT_TRUE(rest.has_value());
  EXPECT_EQ(rest->group, "default");
  EXPECT_EQ(rest->configs, (std::map<std::string, std::string>{{"cleanup.policy", "delete"}}));
}

TEST(TopicCreationTest, PatternsMatchTheWholeName) {
  const TopicCreation rules = Rules({{"default.replication.factor", "1"},
                                     {"default.partitions", "1"},
                                     {"groups", "g"},
                                     {"g.include", "sn"}});
  EXPECT_EQ(rules.For("sn")->group, "g");
  EXPECT_EQ(rules.For("sn.incident")->group, "default");
  EXPECT_EQ(rules.For("xsn")->group, "default");
}

TEST(TopicCreationTest, OneDefaultWithoutTheOtherIsRefusedNamingTheMissingKey) {
  EXPECT_THAT(Problems({{"default.partitions", "6"}}),
              HasSubstr("topic.creation.default.replication.factor: is required with "
                        "topic.creation.default.partitions"));
  EXPECT_THAT(Problems({{"default.replication.factor", "3"}}),
              HasSubstr("topic.creation.default.partitions: is required with "
                        "topic.creation.default.replication.factor"));
}

TEST(TopicCreationTest, BadValuesAreRefusedNamingTheKey) {
  const std::string problems = Problems({{"default.replication.factor", "0"},
                                         {"default.partitions", "many"},
                                         {"groups", "g, default, g, a.b"},
                                         {"g.include", "sn\\.(unclosed"},
                                         {"g.partitions", "-2"},
                                         {"default.include", ".*"},
                                         {"nolisted.partitions", "3"},
                                         {"lonely", "x"}});
  EXPECT_THAT(problems,
              HasSubstr("topic.creation.default.replication.factor: '0' must be -1 or 1 to 32767"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.default.partitions: 'many' must be -1 or 1"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.groups: 'default' is the group"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.groups: 'g' is listed twice"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.groups: 'a.b' is not a group name"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.g.include: 'sn\\.(unclosed' is not a regular "
                                  "expression"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.g.partitions: '-2' must be -1 or 1"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.default.include: the default group takes "
                                  "every topic"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.nolisted.partitions: the group 'nolisted' is "
                                  "not listed in topic.creation.groups"));
  EXPECT_THAT(problems, HasSubstr("topic.creation.lonely: expected topic.creation.<group>."));
}

TEST(TopicCreationTest, AListedGroupNeedsAnInclude) {
  EXPECT_THAT(Problems({{"default.replication.factor", "1"},
                        {"default.partitions", "1"},
                        {"groups", "g"},
                        {"g.partitions", "2"}}),
              HasSubstr("topic.creation.g.include: is required for the group 'g'"));
}

}  // namespace
}  // namespace snowcar::kafka
