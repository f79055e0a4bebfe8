// SPDX-License-Identifier: Apache-2.0
// A broker restart mid-stream, in both directions, on Apache Kafka. The test runs a broker of
// its own (scripts/kafka-server; SIGUSR1 restarts it in place, same ports and data), since
// restarting the run's shared broker would disturb the tests beside it.
//
// Kafka behaviour proven: a broker that stops (controlled shutdown) and starts again with its
// log directory keeps every acknowledged record and every committed offset, and its clients
// reconnect by themselves: rows the source produced while it was down are delivered once it
// is back, commands produced meanwhile are read by the sink, and nothing is lost.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "real_kafka.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;

constexpr int kCommands = 10;

class BrokerRestartRealKafkaTest : public RealKafkaTest {
 protected:
  void SetUp() override {
    RealKafkaTest::SetUp();
    if (HasFatalFailure()) return;
    testsupport::ChildOptions options;
    options.args = {"--addresses-file", dir_.File("own-broker")};
    options.capture_stderr = true;
    auto child = testsupport::ChildProcess::Spawn(KafkaServerScript(), options);
    ASSERT_TRUE(child.ok()) << child.status().message();
    broker_ = std::move(child).value();
    ASSERT_TRUE(testsupport::WaitFor(
        [&] {
          std::ifstream in(dir_.File("own-broker"));
          std::string line;
          while (std::getline(in, line)) {
            if (line.rfind("PLAINTEXT=", 0) == 0) bootstrap_ = line.substr(10);
          }
          return !bootstrap_.empty();
        },
        120s))
        << broker_->Stderr();
  }

  void TearDown() override {
    if (broker_ != nullptr) {
      (void)broker_->Signal(SIGTERM);
      (void)broker_->Wait(60s);
    }
    RealKafkaTest::TearDown();
  }

  // Every row of the instance has at least one record in the table topic.
  bool EveryRowInTopic(const std::string& topic) {
    auto rows = emu_.store().Snapshot("incident");
    if (!rows.ok()) return false;
    const auto log = ReadLog(bootstrap_, topic);
    for (const auto& row : *rows) {
      if (!log.contains(std::string(row->sys_id()))) return false;
    }
    return true;
  }

  void ProduceCommands(const std::string& topic, int first) {
    std::vector<testsupport::OutMessage> messages;
    for (int i = first; i < first + kCommands; ++i) {
      testsupport::OutMessage m;
      m.value = R"({"short_description":"restart )" + std::to_string(i) + R"("})";
      messages.push_back(std::move(m));
    }
    // Acknowledged once the broker is back: the producer waits for it (message.timeout.ms).
    auto r = testsupport::ProduceMessages(bootstrap_, topic, messages, 120s);
    ASSERT_TRUE(r.ok()) << r.status().message();
  }

  std::unique_ptr<testsupport::ChildProcess> broker_;
  std::string bootstrap_;
};

TEST_F(BrokerRestartRealKafkaTest, BothDirectionsLoseNothingAcrossABrokerRestart) {
  ASSERT_TRUE(emulator::Populate(emu_.store(), "incident", {.rows = 5}).ok());
  const std::string table_topic = testsupport::UniqueName("restart.incident");
  const std::string commands = testsupport::UniqueName("restart.commands");
  const testsupport::KafkaConfig admin = {{"bootstrap.servers", bootstrap_}};
  ASSERT_TRUE(testsupport::CreateTopic(admin, table_topic, 1).ok());
  ASSERT_TRUE(testsupport::CreateTopic(admin, commands, 2).ok());
  auto lines = BaseConfig("r");
  lines.insert(lines.end(),
               {"kafka.bootstrap.servers=" + bootstrap_,
                "kafka.group.id=" + testsupport::UniqueName("restart-sink"), "source.enabled=true",
                "snow.tables=incident", "snow.table.incident.name=incident",
                "snow.table.incident.topic=" + table_topic, "snow.source.poll.interval.ms=200",
                "sink.enabled=true", "snow.sink.topics=" + commands, "snow.sink.table=incident",
                "snow.sink.unknown.field.behavior=passthrough", "snow.retry.max.backoff.ms=1000"});
  auto child = StartSidecar("r", lines);
  ASSERT_NE(child, nullptr);
  ProduceCommands(commands, 0);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Descriptions().size() >= kCommands; }, 60s))
      << child->Stderr();
  ASSERT_TRUE(testsupport::WaitFor([&] { return EveryRowInTopic(table_topic); }, 60s))
      << child->Stderr();

  // The restart; while it lasts, the instance gets new rows and Kafka new commands.
  ASSERT_TRUE(broker_->Signal(SIGUSR1).ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(emu_.store()
                    .Insert("incident", {{"short_description", "during " + std::to_string(i)}})
                    .ok());
  }
  ProduceCommands(commands, kCommands);
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return broker_->Stderr().find("kafka-server: restarted") != std::string::npos; }, 120s))
      << broker_->Stderr();

  // Nothing lost: every command applied, every row of the instance in the table topic.
  std::set<std::string> expected;
  for (int i = 0; i < 2 * kCommands; ++i) expected.insert("restart " + std::to_string(i));
  EXPECT_TRUE(testsupport::WaitFor(
      [&] {
        const auto got = Descriptions();
        for (const auto& e : expected) {
          if (!got.contains(e)) return false;
        }
        return true;
      },
      90s))
      << child->Stderr();
  EXPECT_TRUE(testsupport::WaitFor([&] { return EveryRowInTopic(table_topic); }, 90s))
      << child->Stderr();
  ASSERT_TRUE(child->Signal(SIGTERM).ok());
  auto exit = child->Wait(60s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString();
}

}  // namespace
}  // namespace snowcar::realkafka
