// SPDX-License-Identifier: Apache-2.0
// `snowcar broker` as a user meets it: a real process printing its bootstrap address, kcat
// producing and consuming through it, a clean exit on SIGTERM/SIGINT, clear usage errors.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using testsupport::ChildProcess;
using testsupport::RunToCompletion;
using testsupport::TempDir;

using testsupport::Lines;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class BrokerCli : public ::testing::Test {
 protected:
  // Starts `snowcar broker args...` and reads the bootstrap line.
  void StartBroker(std::vector<std::string> args) {
    args.insert(args.begin(), "broker");
    auto child = ChildProcess::Spawn(SNOWCAR_BINARY, {.args = args, .capture_stderr = true});
    ASSERT_TRUE(child.ok()) << child.status().ToString();
    broker_ = std::move(child).value();
    auto line = broker_->ReadLine(30s);
    ASSERT_TRUE(line.ok()) << line.status().ToString() << "\nstderr: " << broker_->Stderr();
    bootstrap_ = *line;
  }

  // Runs kcat with these arguments; fails the test unless it exits 0.
  std::string Kcat(std::vector<std::string> args, std::string_view input = {}) {
    auto run = RunToCompletion("kcat", {.args = std::move(args)}, 60s, input);
    EXPECT_TRUE(run.ok()) << run.status().ToString();
    if (!run.ok()) return {};
    EXPECT_TRUE(run->status.ok()) << "kcat " << run->status.ToString() << ": " << run->err;
    return run->out;
  }

  std::unique_ptr<ChildProcess> broker_;
  std::string bootstrap_;
};

TEST_F(BrokerCli, KcatRoundTripThenCleanStopOnSigterm) {
  TempDir dir;
  const std::string port_file = dir.File("bootstrap.txt");
  ASSERT_NO_FATAL_FAILURE(StartBroker({"--topics", "orders:2", "--port-file", port_file}));
  EXPECT_EQ(bootstrap_.rfind("127.0.0.1:", 0), 0u) << bootstrap_;
  EXPECT_EQ(ReadFile(port_file), bootstrap_ + "\n");

  // kcat -P: key:value lines, the same headers on every message.
  Kcat({"-P", "-b", bootstrap_, "-t", "orders", "-K:", "-H", "snow.table=incident", "-H",
        "trace=abc"},
       "k1:v1\nk2:v2\nk3:v3\nk1:v4\n");

  // Read back from the beginning with a plain consumer.
  const std::string format = "%k|%s|%h|%p\n";
  auto plain = Lines(
      Kcat({"-C", "-b", bootstrap_, "-t", "orders", "-o", "beginning", "-e", "-q", "-f", format}));
  ASSERT_EQ(plain.size(), 4u);
  std::set<std::string> kv;
  std::string partition_of_k1;
  for (const std::string& l : plain) {
    // key|value|headers|partition
    const auto p1 = l.find('|'), p2 = l.find('|', p1 + 1), p3 = l.rfind('|');
    kv.insert(l.substr(0, p2));
    EXPECT_EQ(l.substr(p2 + 1, p3 - p2 - 1), "snow.table=incident,trace=abc") << l;
    if (l.rfind("k1|", 0) == 0) {
      const std::string p = l.substr(p3 + 1);
      if (!partition_of_k1.empty()) {
        EXPECT_EQ(p, partition_of_k1) << "same key, same partition";
      }
      partition_of_k1 = p;
    }
  }
  EXPECT_EQ(kv, (std::set<std::string>{"k1|v1", "k2|v2", "k3|v3", "k1|v4"}));

  // And through a consumer group (balanced consumer), which also exits at the end.
  auto grouped = Lines(Kcat({"-b", bootstrap_, "-G", "cli-group", "-X",
                             "auto.offset.reset=earliest", "-e", "-q", "-f", "%k=%s\n", "orders"}));
  EXPECT_EQ(std::set<std::string>(grouped.begin(), grouped.end()),
            (std::set<std::string>{"k1=v1", "k2=v2", "k3=v3", "k1=v4"}));
  EXPECT_EQ(grouped.size(), 4u);

  ASSERT_TRUE(broker_->Signal(SIGTERM).ok());
  auto status = broker_->Wait(30s);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(status->ok()) << status->ToString() << "\nstderr: " << broker_->Stderr();
  EXPECT_FALSE(std::filesystem::exists(port_file)) << "port file left behind";
}

TEST_F(BrokerCli, ThreeBrokersListedAndSigintStops) {
  ASSERT_NO_FATAL_FAILURE(StartBroker({"--brokers", "3", "--topics=a:3:3,b"}));
  EXPECT_EQ(std::count(bootstrap_.begin(), bootstrap_.end(), ','), 2) << bootstrap_;
  // kcat -L lists the cluster: three brokers and both topics with their partition counts.
  const std::string meta = Kcat({"-L", "-b", bootstrap_});
  EXPECT_NE(meta.find("3 brokers"), std::string::npos) << meta;
  EXPECT_NE(meta.find("topic \"a\" with 3 partitions"), std::string::npos) << meta;
  EXPECT_NE(meta.find("topic \"b\" with 1 partitions"), std::string::npos) << meta;

  ASSERT_TRUE(broker_->Signal(SIGINT).ok());
  auto status = broker_->Wait(30s);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(status->ok()) << status->ToString();
}

// By default clients reach the cluster through the relay that answers CreateTopics; with
// --direct they talk to the mock's own listeners. Either way the cluster is the same to kcat,
// and the relay's ports are not the mock's (the broker's log names the mock's addresses).
TEST_F(BrokerCli, DirectSkipsTheRelay) {
  ASSERT_NO_FATAL_FAILURE(StartBroker({"--topics", "t:2"}));
  const std::string relayed = bootstrap_;
  EXPECT_NE(Kcat({"-L", "-b", relayed}).find("topic \"t\" with 2 partitions"), std::string::npos);
  ASSERT_TRUE(broker_->Signal(SIGTERM).ok());
  ASSERT_TRUE(broker_->Wait(30s).ok());

  ASSERT_NO_FATAL_FAILURE(StartBroker({"--direct", "--topics", "t:2"}));
  const std::string meta = Kcat({"-L", "-b", bootstrap_});
  EXPECT_NE(meta.find("topic \"t\" with 2 partitions"), std::string::npos) << meta;
  // kcat -L prints each broker as "<id> at <host:port>": the mock's own port.
  EXPECT_NE(meta.find(" at " + bootstrap_), std::string::npos) << meta;
  EXPECT_NE(broker_->Stderr().find("\"create_topics_on_request\":false"), std::string::npos)
      << broker_->Stderr();
  ASSERT_TRUE(broker_->Signal(SIGTERM).ok());
  ASSERT_TRUE(broker_->Wait(30s).ok());
}

// Counts the lines of `text` that hold every one of `parts`.
size_t CountLines(const std::string& text, const std::vector<std::string>& parts) {
  size_t n = 0;
  for (const std::string& line : Lines(text)) {
    bool all = true;
    for (const std::string& p : parts) all = all && line.find(p) != std::string::npos;
    n += all ? 1 : 0;
  }
  return n;
}

// 100 KiB records, each a batch of its own, to one partition.
void Fill(const std::string& bootstrap, const std::string& topic, int partition, int count) {
  auto producer = testsupport::TestProducer::Create(
      bootstrap, {{"linger.ms", "0"}, {"batch.num.messages", "1"}});
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  std::vector<testsupport::OutMessage> messages(count);
  for (auto& m : messages) {
    m.value = std::string(size_t{100} * 1024, 'x');
    m.partition = partition;
  }
  auto reports = (*producer)->ProduceAll(topic, messages, 60s);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
}

TEST_F(BrokerCli, WarnsOncePerPartitionWhenTheMockDropsRecords) {
  ASSERT_NO_FATAL_FAILURE(StartBroker({"--topics", "big:2"}));
  const std::string event = "\"broker.records_evicted\"";
  // 6 000 KiB into partition 0: past the mock's 5 MiB, so its oldest records go.
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap_, "big", 0, 60));
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return CountLines(broker_->Stderr(), {event, "\"partition\":0"}) == 1;
      },
      30s))
      << broker_->Stderr();
  // More dropped from partition 0, then partition 1's first drop: one new line, for 1 only.
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap_, "big", 0, 20));
  ASSERT_NO_FATAL_FAILURE(Fill(bootstrap_, "big", 1, 60));
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return CountLines(broker_->Stderr(), {event, "\"partition\":1"}) == 1;
      },
      30s))
      << broker_->Stderr();
  ASSERT_TRUE(broker_->Signal(SIGTERM).ok());
  ASSERT_TRUE(broker_->Wait(30s).ok());
  broker_->WaitStreamsDrained(5s);
  const std::string err = broker_->Stderr();
  EXPECT_EQ(CountLines(err, {event}), 2u) << err;
  EXPECT_EQ(CountLines(err, {event, "\"topic\":\"big\"", "\"level\":\"warn\""}), 2u) << err;
}

TEST_F(BrokerCli, NoEvictionWatchTurnsTheWatchOff) {
  ASSERT_NO_FATAL_FAILURE(StartBroker({"--topics", "big:1", "--no-eviction-watch"}));
  // stderr is drained by a thread of its own: the start line may follow the address a moment
  // later.
  EXPECT_TRUE(testsupport::WaitFor(
      [&] { return broker_->Stderr().find("\"eviction_watch_ms\":0") != std::string::npos; }, 10s))
      << broker_->Stderr();
  ASSERT_TRUE(broker_->Signal(SIGTERM).ok());
  ASSERT_TRUE(broker_->Wait(30s).ok());
}

TEST(BrokerCliUsage, BadArgumentsExitTwoNamingTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string mentions;
  };
  for (const Case& c : std::vector<Case>{{{"broker", "--brokers", "0"}, "--brokers"},
                                         {{"broker", "--brokers", "three"}, "'three'"},
                                         {{"broker", "--topics", "bad/name:2"}, "bad/name"},
                                         {{"broker", "--topics", "a:2:5"}, "replication factor 5"},
                                         {{"broker", "--port-file"}, "--port-file needs a value"},
                                         {{"broker", "--bogus"}, "unknown argument '--bogus'"}}) {
    auto run = RunToCompletion(SNOWCAR_BINARY, {.args = c.args}, 30s);
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    EXPECT_TRUE(run->status.exited);
    EXPECT_EQ(run->status.code, 2) << c.mentions;
    EXPECT_NE(run->err.find(c.mentions), std::string::npos) << run->err;
    EXPECT_TRUE(run->out.empty()) << "nothing on stdout when refusing: " << run->out;
  }
}

TEST(BrokerCliUsage, HelpExitsZero) {
  auto run = RunToCompletion(SNOWCAR_BINARY, {.args = {"broker", "--help"}}, 30s);
  ASSERT_TRUE(run.ok());
  EXPECT_TRUE(run->status.ok());
  EXPECT_NE(run->out.find("--port-file"), std::string::npos);
}

}  // namespace
}  // namespace snowcar
