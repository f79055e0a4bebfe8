// SPDX-License-Identifier: Apache-2.0
// librdkafka 2.0.2 (Debian 12's) and the cooperative-sticky assignor, on Apache Kafka: the
// abort docs/kafka-clients.md describes, reproduced with librdkafka alone.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "real_kafka.h"
#include "snowcar/kafka/consumer.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;

// What docs/kafka-clients.md says about librdkafka 2.0.2 and cooperative-sticky, shown with
// librdkafka alone on Apache Kafka: members of one cooperative group come and go every few
// hundred milliseconds, so the group is nearly always rebalancing, and each one leaving is
// closed and destroyed as any application does. One destroyed after its JoinGroup was
// answered but before its first SyncGroup was (the sticky assignor has no state yet) aborts
// the process in rd_kafka_sticky_assignor_state_destroy (librdkafka issue #4312; fixed in
// 2.3.0 by #4381). The churn runs in a child process (a death test) until that abort.
TEST(CooperativeStickyLibrdkafkaTest, DestroyingAMemberBeforeItsFirstSyncGroupAborts) {
  if (rd_kafka_version() >= 0x020300ff) {
    GTEST_SKIP() << "librdkafka " << rd_kafka_version_str() << " has the fix (2.3.0, #4381)";
  }
  auto kafka = LoadRealKafka();
  ASSERT_TRUE(kafka.ok()) << kafka.status().message();
  const std::string topic = testsupport::UniqueName("coop-abort");
  ASSERT_TRUE(testsupport::CreateTopic(kafka->Admin(), topic, 6).ok());
  const std::string group = testsupport::UniqueName("coop-abort");
  const testsupport::KafkaConfig config = {{"partition.assignment.strategy", "cooperative-sticky"},
                                           {"heartbeat.interval.ms", "100"},
                                           {"session.timeout.ms", "6000"}};
  auto churn = [&] {
    std::vector<std::unique_ptr<testsupport::TestConsumer>> members;
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    for (int i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
      auto c = testsupport::TestConsumer::Create(kafka->plaintext, group, {topic}, config);
      if (c.ok()) members.push_back(std::move(c).value());
      for (auto& m : members) (void)m->PollFor(std::chrono::milliseconds(10 + (i * 37) % 90));
      // The oldest leaves: rd_kafka_consumer_close, then rd_kafka_destroy.
      if (members.size() > 4) members.erase(members.begin());
    }
    std::fprintf(stderr, "no abort in 90 s of churn\n");
    std::exit(0);
  };
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(churn(), "rd_kafka_sticky_assignor_state_destroy.*assignor_state");
}

// The same churn through snowcar's own consumer (kafka::KafkaConsumer, which the sink and
// the table group use): it leaves a member that never finished a SyncGroup undestroyed, so
// nothing aborts. Run in this process: an abort fails the test binary.
TEST(CooperativeStickyLibrdkafkaTest, SnowcarConsumersSurviveTheSameChurn) {
  auto kafka = LoadRealKafka();
  ASSERT_TRUE(kafka.ok()) << kafka.status().message();
  const std::string topic = testsupport::UniqueName("coop-safe");
  ASSERT_TRUE(testsupport::CreateTopic(kafka->Admin(), topic, 6).ok());
  const std::string group = testsupport::UniqueName("coop-safe");
  std::vector<std::unique_ptr<kafka::KafkaConsumer>> members;
  int created = 0;
  const auto deadline = std::chrono::steady_clock::now() + 12s;
  for (int i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
    kafka::ConsumerOptions options;
    options.properties = {{"bootstrap.servers", kafka->plaintext},
                          {"group.id", group},
                          {"partition.assignment.strategy", "cooperative-sticky"},
                          {"heartbeat.interval.ms", "100"},
                          {"session.timeout.ms", "6000"}};
    options.topics = {topic};
    options.close_timeout = 2s;
    auto c = kafka::KafkaConsumer::Create(std::move(options));
    ASSERT_TRUE(c.ok()) << c.status().message();
    members.push_back(std::move(c).value());
    ++created;
    for (auto& m : members) (void)m->Poll(std::chrono::milliseconds(10 + (i * 37) % 90));
    if (members.size() > 4) members.erase(members.begin());  // Close(), then the handle goes
  }
  members.clear();
  std::printf("[ figures  ] %d cooperative-sticky consumers created and closed, no abort\n",
              created);
}

}  // namespace
}  // namespace snowcar::realkafka
