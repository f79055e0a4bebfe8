// SPDX-License-Identifier: Apache-2.0
// StateChangelog against the embedded broker: topic checks (missing, too few partitions,
// enough), reading a partition's latest value for a key, and that read across a leader
// change (a "not leader" answer, a stale leader on a stopped broker).
#include "source/snapshot/state_changelog.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::source {
namespace {

using namespace std::chrono_literals;

// A reader of the changelog at bootstrap; null (and a failure recorded) if it cannot be made.
std::unique_ptr<StateChangelog> MakeChangelog(const std::string& bootstrap) {
  auto made = StateChangelog::Create({{"bootstrap.servers", bootstrap}},
                                     testsupport::UniqueName("restore"));
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(made).value() : nullptr;
}

// One record, key "inc" and the given value, to partition 0 of topic.
Status ProduceOne(const std::string& bootstrap, const std::string& topic,
                  const std::string& value) {
  auto producer = testsupport::TestProducer::Create(bootstrap);
  if (!producer.ok()) return producer.status();
  testsupport::OutMessage m;
  m.key = "inc";
  m.value = value;
  m.partition = 0;
  return (*producer)->ProduceAll(topic, {m}, 30s).status();
}

class StateChangelogTest : public testsupport::SharedBrokerTest<StateChangelogTest> {
 protected:
  std::unique_ptr<StateChangelog> Make() { return MakeChangelog(bootstrap()); }
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

// Right after a topic is created, or while leaders move, the broker the client takes for the
// leader may answer "not leader": the restore asks the cluster where the leader is and asks
// again within its deadline instead of failing (which fell back to older local state and
// re-emitted rows).
TEST_F(StateChangelogTest, ANotLeaderAnswerIsAskedAgainWithinTheDeadline) {
  const std::string topic = testsupport::UniqueName("grp.state");
  ASSERT_TRUE(broker().CreateTopic(topic, 1).ok());
  ASSERT_TRUE(ProduceOne(bootstrap(), topic, "v1").ok());
  auto changelog = Make();
  ASSERT_NE(changelog, nullptr);
  ASSERT_TRUE(broker()
                  .PushRequestErrors(broker::ApiKey::kListOffsets,
                                     {RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                      RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION})
                  .ok());
  auto inc = changelog->ReadLatest(topic, 0, "inc", 20s);
  (void)broker().ClearRequestErrors(broker::ApiKey::kListOffsets);
  ASSERT_TRUE(inc.ok()) << inc.status().ToString();
  EXPECT_EQ(*inc, std::optional<std::string>("v1"));
}

// Three brokers; the changelog partition's leader moves from broker 3 to broker 1 and broker
// 3 stops (a controlled shutdown) after the reader last read it, so its cached metadata still
// names broker 3. The read must find the new leader within its deadline: it used to send the
// end-offset request to the stopped broker again and again, past any deadline, which held the
// whole table group's thread (no table acquired).
class StateChangelogLeaderMoveTest : public testsupport::EmbeddedBrokerTest {
 protected:
  broker::BrokerOptions Options() override { return {.brokers = 3}; }
};

TEST_F(StateChangelogLeaderMoveTest, AStaleLeaderOnAStoppedBrokerIsLeftForTheNewOne) {
  const std::string topic = testsupport::UniqueName("grp.state");
  ASSERT_TRUE(broker().CreateTopic(topic, 1, 3).ok());
  ASSERT_TRUE(broker().SetPartitionLeader(topic, 0, 3).ok());
  ASSERT_TRUE(ProduceOne(bootstrap(), topic, "v1").ok());
  std::unique_ptr<StateChangelog> changelog = MakeChangelog(bootstrap());
  ASSERT_NE(changelog, nullptr);
  auto first = changelog->ReadLatest(topic, 0, "inc", 20s);
  ASSERT_TRUE(first.ok()) << first.status().ToString();

  ASSERT_TRUE(broker().SetPartitionLeader(topic, 0, 1).ok());
  ASSERT_TRUE(broker().SetBrokerDown(3).ok());
  std::promise<Result<std::optional<std::string>>> answer;
  auto got = answer.get_future();
  const auto began = std::chrono::steady_clock::now();
  std::thread reader([&] { answer.set_value(changelog->ReadLatest(topic, 0, "inc", 20s)); });
  // The read's own deadline is 20 s: past 25 s it is not keeping it.
  const bool answered = got.wait_for(25s) == std::future_status::ready;
  if (!answered) {
    ADD_FAILURE() << "the read did not return within 25 s (its deadline is 20 s)";
    ASSERT_TRUE(broker().SetBrokerUp(3).ok());  // lets the stuck read end
  }
  reader.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (!answered) return;
  auto second = got.get();
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, std::optional<std::string>("v1"));
  // A leader that moved is found in a few metadata round trips, not by waiting out a timeout.
  EXPECT_LT(seconds, 10.0);
  std::printf("[ figures  ] read after the leader moved off a stopped broker: %.0f ms\n",
              seconds * 1000);
}

}  // namespace
}  // namespace snowcar::source
