// SPDX-License-Identifier: Apache-2.0
#include "real_kafka.h"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "snowcar/api/client.h"
#include "support/wait.h"

namespace snowcar::realkafka {

using namespace std::chrono_literals;

testsupport::KafkaConfig RealKafka::Sasl(const std::string& user, const std::string& password,
                                         const std::string& mechanism) const {
  return {{"bootstrap.servers", sasl_ssl}, {"security.protocol", "SASL_SSL"},
          {"sasl.mechanisms", mechanism},  {"sasl.username", user},
          {"sasl.password", password},     {"ssl.ca.location", ca_location}};
}

Result<RealKafka> LoadRealKafka() {
  const std::string path = SNOWCAR_KAFKA_ADDRESSES;
  if (!std::ifstream(path)) {
    return Status::FailedPrecondition(
        "no Apache Kafka broker: " + path +
        " is missing. ctest starts one (the kafka_broker fixture); by hand: "
        "scripts/kafka-fixture start " +
        path);
  }
  return LoadRealKafka(path);
}

Result<RealKafka> LoadRealKafka(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::FailedPrecondition("no addresses file " + path);
  std::map<std::string, std::string> v;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) v[line.substr(0, eq)] = line.substr(eq + 1);
  }
  RealKafka k;
  k.version = v["KAFKA_VERSION"];
  k.plaintext = v["PLAINTEXT"];
  k.sasl_ssl = v["SASL_SSL"];
  k.ca_location = v["CA_LOCATION"];
  k.admin_user = v["ADMIN_USER"];
  k.admin_password = v["ADMIN_PASSWORD"];
  k.scram_user = v["SCRAM_USER"];
  k.scram_password = v["SCRAM_PASSWORD"];
  k.plain_user = v["PLAIN_USER"];
  k.plain_password = v["PLAIN_PASSWORD"];
  if (k.plaintext.empty() || k.sasl_ssl.empty()) {
    return Status::FailedPrecondition(path + " names no PLAINTEXT or SASL_SSL address");
  }
  return k;
}

std::map<std::string, std::vector<std::string>> ReadLog(const std::string& bootstrap,
                                                        const std::string& topic) {
  testsupport::ChildOptions opts;
  opts.args = {"-b",        bootstrap, "-C", "-t", topic, "-o",
               "beginning", "-e",      "-q", "-Z", "-f",  "%k\t%S\n"};
  opts.capture_stderr = true;
  std::map<std::string, std::vector<std::string>> out;
  auto r = testsupport::RunToCompletion("kcat", opts, std::chrono::seconds(30));
  if (!r.ok()) return out;
  std::istringstream lines(r->out);
  std::string line;
  while (std::getline(lines, line)) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    // %S is the value's size: -1 for a tombstone.
    out[line.substr(0, tab)].push_back(line.substr(tab + 1) == "-1" ? "NULL" : "value");
  }
  return out;
}

std::string KafkaServerScript() {
  return std::string(SNOWCAR_SOURCE_DIR) + "/scripts/kafka-server";
}

void RealKafkaTest::SetUp() {
  auto k =
      addresses_file_ == SNOWCAR_KAFKA_ADDRESSES ? LoadRealKafka() : LoadRealKafka(addresses_file_);
  ASSERT_TRUE(k.ok()) << k.status().message();
  kafka_ = *k;
  ASSERT_TRUE(emu_.store().CreateTable("incident").ok());
  ASSERT_TRUE(emu_.Start().ok());
}

void RealKafkaTest::TearDown() {
  emu_.Stop();
  if (own_broker_ != nullptr) {
    (void)own_broker_->Signal(SIGTERM);
    (void)own_broker_->Wait(std::chrono::seconds(60));
  }
}

void RealKafkaTest::UseOwnBroker(const std::vector<std::string>& args) {
  const std::string addresses = dir_.File("own-broker");
  testsupport::ChildOptions options;
  options.args = args;
  options.args.insert(options.args.end(), {"--addresses-file", addresses});
  options.capture_stderr = true;
  auto child = testsupport::ChildProcess::Spawn(KafkaServerScript(), options);
  ASSERT_TRUE(child.ok()) << child.status().message();
  own_broker_ = std::move(child).value();
  // The script writes the file atomically once the broker serves.
  Result<RealKafka> k = Status::FailedPrecondition("not started");
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        k = LoadRealKafka(addresses);
        return k.ok();
      },
      std::chrono::seconds(120)))
      << own_broker_->Stderr();
  kafka_ = *k;
}

std::vector<std::string> RealKafkaTest::BaseConfig(const std::string& name) const {
  return {"snow.url=" + emu_.base_url(),
          "snow.auth.username=admin",
          "snow.auth.password=admin-emulator",
          "threads=2",
          "state.dir=" + dir_.File(name + "-state"),
          "socket.path=" + Socket(name),
          "log.format=json"};
}

std::unique_ptr<testsupport::ChildProcess> RealKafkaTest::StartSidecar(
    const std::string& name, const std::vector<std::string>& lines,
    const std::vector<std::pair<std::string, std::string>>& env) {
  const std::string config = dir_.File(name + ".properties");
  {
    std::ofstream out(config);
    for (const auto& l : lines) out << l << "\n";
  }
  testsupport::ChildOptions options;
  options.args = {"run", "--config", config};
  options.env = env;
  options.capture_stderr = true;
  auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
  EXPECT_TRUE(child.ok()) << child.status().message();
  return child.ok() ? std::move(child).value() : nullptr;
}

std::unique_ptr<testsupport::ChildProcess> RealKafkaTest::StartForKill(
    const std::string& name, const std::vector<std::string>& lines, std::mt19937& rng,
    int max_delay_ms) {
  auto child = StartSidecar(name, lines);
  if (child == nullptr) return nullptr;
  if (std::uniform_int_distribution<int>(0, 3)(rng) != 0) {
    const bool started = testsupport::WaitFor(
        [&] { return child->Stderr().find("\"source.table_starting\"") != std::string::npos; },
        30s);
    if (!started) {
      ADD_FAILURE() << "the table did not start within 30 s:\n" << child->Stderr();
      return nullptr;
    }
  }
  std::this_thread::sleep_for(
      std::chrono::milliseconds(std::uniform_int_distribution<int>(0, max_delay_ms)(rng)));
  return child;
}

std::string RealKafkaTest::Get(const std::string& name, const std::string& path) const {
  api::Client client;
  auto r = client.Get(Socket(name), path);
  return r.ok() && r->status == 200 ? r->body : std::string();
}

std::string RealKafkaTest::SecretFile(const std::string& file, const std::string& secret) const {
  std::string path = dir_.File(file);
  std::ofstream(path) << secret;
  return path;
}

size_t RealKafkaTest::IncidentRows() {
  auto rows = emu_.store().Snapshot("incident");
  return rows.ok() ? rows->size() : 0;
}

std::set<std::string> RealKafkaTest::Descriptions() {
  std::set<std::string> out;
  auto schema = emu_.store().Schema("incident");
  auto rows = emu_.store().Snapshot("incident");
  if (schema == nullptr || !rows.ok()) return out;
  for (size_t i = 0; i < schema->size(); ++i) {
    if (schema->field(i).name != "short_description") continue;
    for (const auto& row : *rows) out.emplace(row->Get(i));
  }
  return out;
}

}  // namespace snowcar::realkafka
