// SPDX-License-Identifier: Apache-2.0
// topic.creation (Kafka Connect's KIP-158 keys) on Apache Kafka: the source creates each
// table's topic before its first produce, with the partitions, replication factor and topic
// configs of the group the topic falls in, and leaves an existing topic as it is.
//
// Kafka behaviour proven: CreateTopics with per-topic configs on a broker that creates no
// topic on first use (auto.create.topics.enable=false), read back with DescribeConfigs and the
// metadata's partition and replica counts; -1 takes the broker's default.replication.factor;
// the StandardAuthorizer refuses CreateTopics without Create (TOPIC_AUTHORIZATION_FAILED) and
// allows it once the ACL exists.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <string>
#include <vector>

#include "real_kafka.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;

constexpr size_t kRows = 5;

// A count or config read back from the cluster, or what went wrong reading it (so a failed
// read shows in the expectation instead of aborting the test).
int Value(const Result<int>& r) { return r.ok() ? *r : -1; }
std::string Value(const Result<std::string>& r) {
  return r.ok() ? *r : "<" + r.status().message() + ">";
}

class TopicCreationRealKafkaTest : public RealKafkaTest {
 protected:
  void SetUp() override {
    RealKafkaTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(emulator::Populate(emu_.store(), "incident", {.rows = kRows}).ok());
    id_ = testsupport::UniqueName("tc");
  }

  // Every record of `topic` has reached it: kRows distinct keys.
  bool Reaches(const std::string& topic, std::chrono::milliseconds timeout) {
    return testsupport::WaitFor([&] { return ReadLog(kafka_.plaintext, topic).size() >= kRows; },
                                timeout);
  }

  // The health document's component `name`: its detail, or "" when absent or ok.
  std::string FailingDetail(const std::string& sidecar, const std::string& name) {
    boost::system::error_code ec;
    auto v = boost::json::parse(Get(sidecar, "/v1/health"), ec);
    if (ec || !v.is_object()) return "";
    const auto* c = v.as_object().if_contains("components");
    const auto* entry = c != nullptr && c->is_object() ? c->as_object().if_contains(name) : nullptr;
    if (entry == nullptr || !entry->is_object() || entry->as_object().at("ok").as_bool()) return "";
    return std::string(entry->as_object().at("detail").as_string());
  }

  static void Stop(testsupport::ChildProcess& child) {
    ASSERT_TRUE(child.Signal(SIGTERM).ok());
    auto exit = child.Wait(60s);
    ASSERT_TRUE(exit.ok());
    EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << child.Stderr();
  }

  std::string id_;
};

TEST_F(TopicCreationRealKafkaTest,
       CreatesEachTableTopicWithItsGroupsSettingsAndKeepsAnExistingOne) {
  // Three aliases of the incident table: one topic in the default group, one in the
  // `compacted` group, one that exists beforehand with settings of its own.
  const std::string plain = id_ + ".incident";
  const std::string compacted = id_ + ".compacted.incident";
  const std::string existing = id_ + ".existing";
  ASSERT_TRUE(
      testsupport::CreateTopic(kafka_.Admin(), existing, 1, {{"max.message.bytes", "2000000"}})
          .ok());
  auto lines = BaseConfig("c");
  lines.insert(
      lines.end(),
      {"kafka.bootstrap.servers=" + kafka_.plaintext, "sink.enabled=false",
       "snow.tables=plain,comp,old", "snow.table.plain.name=incident",
       "snow.table.plain.topic=" + plain, "snow.table.comp.name=incident",
       "snow.table.comp.topic=" + compacted, "snow.table.old.name=incident",
       "snow.table.old.topic=" + existing,
       // -1: the broker's default.replication.factor (1 on this one-node broker).
       "topic.creation.default.replication.factor=-1", "topic.creation.default.partitions=3",
       "topic.creation.default.max.message.bytes=1500000", "topic.creation.groups=compacted",
       // A properties file halves backslashes, as Java's does: `\\.` in the file.
       "topic.creation.compacted.include=.*\\\\.compacted\\\\..*",
       "topic.creation.compacted.partitions=2", "topic.creation.compacted.replication.factor=1",
       "topic.creation.compacted.cleanup.policy=compact"});
  auto child = StartSidecar("c", lines);
  ASSERT_NE(child, nullptr);
  EXPECT_TRUE(Reaches(plain, 60s)) << child->Stderr();
  EXPECT_TRUE(Reaches(compacted, 60s)) << child->Stderr();
  EXPECT_TRUE(Reaches(existing, 60s)) << child->Stderr();

  // The default group: 3 partitions, the broker's replication factor, its config. (Not
  // retention.ms: the rows carry their update times as record times, older than a short
  // retention, and this broker applies retention every second.)
  EXPECT_EQ(Value(testsupport::PartitionCount(kafka_.plaintext, plain, 10s)), 3);
  EXPECT_EQ(Value(testsupport::ReplicationFactor(kafka_.plaintext, plain, 10s)), 1);
  EXPECT_EQ(Value(testsupport::TopicConfig(kafka_.Admin(), plain, "max.message.bytes")), "1500000");
  EXPECT_EQ(Value(testsupport::TopicConfig(kafka_.Admin(), plain, "cleanup.policy")), "delete");
  // The compacted group: its own partitions and config, not the default group's.
  EXPECT_EQ(Value(testsupport::PartitionCount(kafka_.plaintext, compacted, 10s)), 2);
  EXPECT_EQ(Value(testsupport::TopicConfig(kafka_.Admin(), compacted, "cleanup.policy")),
            "compact");
  EXPECT_EQ(Value(testsupport::TopicConfig(kafka_.Admin(), compacted, "max.message.bytes")),
            "1048588");
  // The existing topic is untouched.
  EXPECT_EQ(Value(testsupport::PartitionCount(kafka_.plaintext, existing, 10s)), 1);
  EXPECT_EQ(Value(testsupport::TopicConfig(kafka_.Admin(), existing, "max.message.bytes")),
            "2000000");

  // The log says what was created, with the group that decided; nothing for the old topic.
  const std::string log = child->Stderr();
  EXPECT_NE(log.find("\"source.topic_created\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"group\":\"compacted\""), std::string::npos) << log;
  EXPECT_EQ(log.find("\"topic\":\"" + existing + "\",\"group\""), std::string::npos) << log;
  Stop(*child);
}

TEST_F(TopicCreationRealKafkaTest, WithoutCreateTheTableHoldsUntilGrantedAndLosesNothing) {
  const std::string topic = id_ + ".incident";
  const std::string p = "User:" + kafka_.scram_user;
  // docs/production.md's ACLs for a source table, without Create.
  ASSERT_TRUE(
      testsupport::CreateAcls(
          kafka_.Admin(), {{RD_KAFKA_RESOURCE_TOPIC, topic, p, RD_KAFKA_ACL_OPERATION_WRITE},
                           {RD_KAFKA_RESOURCE_TOPIC, topic, p, RD_KAFKA_ACL_OPERATION_DESCRIBE}})
          .ok());
  auto lines = BaseConfig("a");
  lines.insert(
      lines.end(),
      {"kafka.bootstrap.servers=" + kafka_.sasl_ssl, "kafka.security.protocol=SASL_SSL",
       "kafka.sasl.mechanisms=SCRAM-SHA-512", "kafka.sasl.username=" + kafka_.scram_user,
       "kafka.sasl.password.file=" + SecretFile("a-password", kafka_.scram_password),
       "kafka.ssl.ca.location=" + kafka_.ca_location, "sink.enabled=false", "snow.tables=incident",
       "snow.table.incident.name=incident", "snow.table.incident.topic=" + topic,
       "snow.retry.max.backoff.ms=1000", "topic.creation.default.replication.factor=1",
       "topic.creation.default.partitions=2"});
  auto child = StartSidecar("a", lines);
  ASSERT_NE(child, nullptr);
  // The table holds; its health names the topic and the refusal.
  std::string detail;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        detail = FailingDetail("a", "source.incident");
        return detail.find("TOPIC_AUTHORIZATION_FAILED") != std::string::npos;
      },
      60s))
      << Get("a", "/v1/health") << child->Stderr();
  EXPECT_NE(detail.find("topic '" + topic + "' does not exist"), std::string::npos) << detail;
  EXPECT_NE(detail.find("partitions 2"), std::string::npos) << detail;
  EXPECT_NE(child->Stderr().find("source.topic_create_failed"), std::string::npos);
  EXPECT_FALSE(testsupport::PartitionCount(kafka_.plaintext, topic, 10s).ok());
  EXPECT_FALSE(child->Wait(1s).ok()) << "the sidecar exited: " << child->Stderr();

  // Once Create is granted, the table creates its topic and every row arrives.
  ASSERT_TRUE(testsupport::CreateAcls(kafka_.Admin(), {{RD_KAFKA_RESOURCE_TOPIC, topic, p,
                                                        RD_KAFKA_ACL_OPERATION_CREATE}})
                  .ok());
  EXPECT_TRUE(Reaches(topic, 60s)) << child->Stderr();
  EXPECT_EQ(Value(testsupport::PartitionCount(kafka_.plaintext, topic, 10s)), 2);
  EXPECT_TRUE(
      testsupport::WaitFor([&] { return FailingDetail("a", "source.incident").empty(); }, 30s))
      << Get("a", "/v1/health");
  EXPECT_EQ(child->Stderr().find(kafka_.scram_password), std::string::npos);
  Stop(*child);
}

}  // namespace
}  // namespace snowcar::realkafka
