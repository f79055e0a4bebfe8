// SPDX-License-Identifier: Apache-2.0
// StateChangelog against the embedded broker: topic checks (missing, too few partitions,
// enough) and reading a partition's latest value for a key.
#include "source/snapshot/state_changelog.h"

#include <gtest/gtest.h>

#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::source {
namespace {

using namespace std::chrono_literals;

class StateChangelogTest : public testsupport::SharedBrokerTest<StateChangelogTest> {
 protected:
  std::unique_ptr<StateChangelog> Make() {
    auto made = StateChangelog::Create({{"bootstrap.servers", bootstrap()}},
                                       testsupport::UniqueName("restore"));
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(made).value() : nullptr;
  }
};

TEST_F(StateChangelogTest, ATopicWithEnoughPartitionsIsAccepted) {
  const std::string topic = testsupport::UniqueName("grp.state");
  ASSERT_TRUE(broker().CreateTopic(topic, 4).ok());
  auto changelog = Make();
  ASSERT_NE(changelog, nullptr);
  EXPECT_TRUE(changelog->EnsureTopic({topic, 3, true}, 10s).ok());
  EXPECT_TRUE(changelog->EnsureTopic({topic, 4, true}, 10s).ok());
}

TEST_F(StateChangelogTest, TooFewPartitionsIsRefusedNamingTheTopicAndCounts) {
  const std::string topic = testsupport::UniqueName("grp.tables");
  ASSERT_TRUE(broker().CreateTopic(topic, 2).ok());
  auto changelog = Make();
  ASSERT_NE(changelog, nullptr);
  Status s = changelog->EnsureTopic({topic, 5, false}, 10s);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find(topic), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("has 2 partitions but 5"), std::string::npos) << s.message();
}

TEST_F(StateChangelogTest, AMissingTopicTheClusterCannotCreateIsNamedWithHowToCreateIt) {
  // The embedded broker has no Admin API, so the creation attempt fails and says so.
  const std::string topic = testsupport::UniqueName("grp.missing");
  auto changelog = Make();
  ASSERT_NE(changelog, nullptr);
  Status s = changelog->EnsureTopic({topic, 3, true}, 2s);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'" + topic + "' does not exist"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 partitions and cleanup.policy=compact"), std::string::npos)
      << s.message();
}

TEST_F(StateChangelogTest, ReadLatestReturnsTheLastValueOfTheKeyInThePartition) {
  const std::string topic = testsupport::UniqueName("grp.state");
  ASSERT_TRUE(broker().CreateTopic(topic, 2).ok());
  auto producer = testsupport::TestProducer::Create(bootstrap());
  ASSERT_TRUE(producer.ok());
  std::vector<testsupport::OutMessage> messages;
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"inc", "v1"}, {"chg", "c1"}, {"inc", "v2"}, {"chg", "c2"}, {"inc", "v3"}}) {
    testsupport::OutMessage m;
    m.key = key;
    m.value = value;
    m.partition = 1;
    messages.push_back(m);
  }
  ASSERT_TRUE((*producer)->ProduceAll(topic, messages, 30s).ok());

  auto changelog = Make();
  ASSERT_NE(changelog, nullptr);
  int64_t read = 0;
  auto inc = changelog->ReadLatest(topic, 1, "inc", 20s, &read);
  ASSERT_TRUE(inc.ok()) << inc.status().ToString();
  EXPECT_EQ(*inc, std::optional<std::string>("v3"));
  EXPECT_EQ(read, 5);
  auto chg = changelog->ReadLatest(topic, 1, "chg", 20s);
  ASSERT_TRUE(chg.ok());
  EXPECT_EQ(*chg, std::optional<std::string>("c2"));
  auto none = changelog->ReadLatest(topic, 1, "prb", 20s);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  // An empty partition answers at once with nothing.
  auto empty = changelog->ReadLatest(topic, 0, "inc", 20s);
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

}  // namespace
}  // namespace snowcar::source
