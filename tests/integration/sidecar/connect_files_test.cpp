// SPDX-License-Identifier: Apache-2.0
// Properties files written for Kafka Connect ServiceNow connectors run unchanged: Confluent's
// ServiceNow Source and Sink connectors' files and the reference sink connector's file pass
// `snowcar config check`, and `snowcar run` on them moves rows against the emulator and the
// embedded broker. Only what the Connect worker supplied (the broker address) is in the file
// besides the connector's own keys, and only the sidecar's local paths are given with --set.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <fstream>
#include <string>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/child_process.h"
#include "support/kafka_client.h"
#include "support/sidecar_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

using testsupport::JsonInt;

class ConnectFilesTest : public testsupport::EmbeddedBrokerTest {
 protected:
  void SetUp() override {
    testsupport::EmbeddedBrokerTest::SetUp();
    ASSERT_TRUE(emu_.store().CreateTable("incident").ok());
    ASSERT_TRUE(emulator::Populate(emu_.store(), "incident", {.rows = 12}).ok());
    // The sink checks a command's fields against the data dictionary (the default
    // unknown-field policy); the emulator has none of its own, so the test writes one.
    auto& store = emu_.store();
    ASSERT_TRUE(store.CreateTable("sys_db_object").ok());
    ASSERT_TRUE(store.CreateTable("sys_dictionary").ok());
    ASSERT_TRUE(store
                    .Insert("sys_db_object",
                            {{"sys_id", "0123456789abcdef0123456789abcdef"}, {"name", "incident"}})
                    .ok());
    ASSERT_TRUE(
        store.Insert("sys_dictionary", {{"name", "incident"}, {"element", "short_description"}})
            .ok());
    ASSERT_TRUE(emu_.Start().ok());
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = dir_.File(name);
    std::ofstream(path) << text;
    return path;
  }

  // `snowcar config check FILE`: must pass with nothing added.
  void ExpectCheckPasses(const std::string& path) {
    testsupport::ChildOptions check;
    check.args = {"config", "check", path};
    auto c = testsupport::RunToCompletion(SNOWCAR_BINARY, check, 30s);
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_EQ(c->status.code, 0) << c->err << c->out;
    EXPECT_NE(c->out.find("config OK"), std::string::npos) << c->out;
  }

  // `snowcar run --config FILE` with only the sidecar's local paths set.
  testsupport::ChildProcess* Run(const std::string& path) {
    sidecar_ = testsupport::SidecarProcess::Start(path, {}, "snowcar-connect-files");
    return sidecar_ != nullptr ? &sidecar_->child() : nullptr;
  }

  std::string Get(const char* target) { return sidecar_->Get(target); }

  // A CREATE command on `topic` becomes row 13 of the emulator's incident table.
  void ExpectCommandBecomesARow(const std::string& topic) {
    testsupport::OutMessage command;
    command.value = R"({"short_description":"from a connect file"})";
    ASSERT_TRUE(testsupport::ProduceMessages(bootstrap(), topic, {command}, 30s).ok());
    EXPECT_TRUE(
        testsupport::WaitFor([&] { return testsupport::TableHasRows(emu_, "incident", 13); }, 60s))
        << Get("/v1/sink/partitions");
  }

  emulator::EmulatorServer emu_;
  testsupport::TempDir dir_{"snowcar-connect-files"};
  std::unique_ptr<testsupport::SidecarProcess> sidecar_;
};

TEST_F(ConnectFilesTest, ConfluentSourceConnectorFile) {
  const std::string path = WriteFile("confluent-source.properties",
                                     "name=servicenow-incidents\n"
                                     "connector.class=io.confluent.connect.servicenow."
                                     "ServiceNowSourceConnector\n"
                                     "tasks.max=1\n"
                                     "servicenow.url=" +
                                         emu_.base_url() +
                                         "/\n"
                                         "servicenow.table=incident\n"
                                         "servicenow.user=admin\n"
                                         "servicenow.password=admin-emulator\n"
                                         "servicenow.since=2000-01-01\n"
                                         "kafka.topic=confluent.incident\n"
                                         "batch.max.rows=5\n"
                                         "poll.interval.s=1\n"
                                         "retry.max.times=2\n"
                                         "key.converter=org.apache.kafka.connect.storage."
                                         "StringConverter\n"
                                         "value.converter=org.apache.kafka.connect.json."
                                         "JsonConverter\n"
                                         "confluent.topic.bootstrap.servers=" +
                                         bootstrap() +
                                         "\n"
                                         "confluent.topic.replication.factor=1\n"
                                         "kafka.bootstrap.servers=" +
                                         bootstrap() + "\n");
  ExpectCheckPasses(path);
  auto child = Run(path);
  ASSERT_NE(child, nullptr);
  // The table's alias is its name; every row reaches kafka.topic, five per page.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return JsonInt(Get("/v1/source/tables/incident"), "rows_emitted") == 12; }, 60s))
      << Get("/v1/source/tables/incident") << child->Stderr();
  auto records = testsupport::ConsumeMessages(bootstrap(), "reader", "confluent.incident", 12, 30s);
  ASSERT_TRUE(records.ok()) << records.status().message();
  EXPECT_EQ(records->size(), 12u);
  // Only the source runs: the file was written for a source connector.
  EXPECT_EQ(Get("/v1/sink/partitions"), "");
  sidecar_->StopCleanly();
}

TEST_F(ConnectFilesTest, ConfluentSinkConnectorFile) {
  const std::string path = WriteFile("confluent-sink.properties",
                                     "name=servicenow-sink\n"
                                     "connector.class=io.confluent.connect.servicenow."
                                     "ServiceNowSinkConnector\n"
                                     "tasks.max=1\n"
                                     "topics=confluent.commands\n"
                                     "servicenow.url=" +
                                         emu_.base_url() +
                                         "\n"
                                         "servicenow.table=incident\n"
                                         "servicenow.username=admin\n"
                                         "servicenow.password=admin-emulator\n"
                                         "proxy.url=\n"
                                         "reporter.bootstrap.servers=" +
                                         bootstrap() +
                                         "\n"
                                         "reporter.result.topic.name=confluent.results\n"
                                         "reporter.result.topic.replication.factor=1\n"
                                         "reporter.error.topic.name=confluent.errors\n"
                                         "reporter.error.topic.replication.factor=1\n"
                                         "errors.tolerance=all\n"
                                         "key.converter=org.apache.kafka.connect.storage."
                                         "StringConverter\n"
                                         "value.converter=org.apache.kafka.connect.json."
                                         "JsonConverter\n"
                                         "value.converter.schemas.enable=false\n"
                                         "kafka.bootstrap.servers=" +
                                         bootstrap() + "\n");
  ExpectCheckPasses(path);
  auto child = Run(path);
  ASSERT_NE(child, nullptr);
  ExpectCommandBecomesARow("confluent.commands");
  // The success report went to reporter.result.topic.name.
  auto reports = testsupport::ConsumeMessages(bootstrap(), "reader", "confluent.results", 1, 30s);
  ASSERT_TRUE(reports.ok()) << reports.status().message();
  // The sink consumed in the group Kafka Connect gave the connector, connect-<name>.
  EXPECT_NE(child->Stderr().find("connect-servicenow-sink"), std::string::npos);
  sidecar_->StopCleanly();
}

// The reference connector's sink file as a Connect cluster exports it: before, the source
// (on by default) refused it for want of snow.tables.
TEST_F(ConnectFilesTest, ReferenceSinkConnectorFile) {
  const std::string path = WriteFile("reference-sink.properties",
                                     "name=snow-sink\n"
                                     "connector.class=com.example.ServiceNowSinkConnector\n"
                                     "tasks.max=2\n"
                                     "topics=reference.commands\n"
                                     "key.converter=org.apache.kafka.connect.storage."
                                     "StringConverter\n"
                                     "value.converter=org.apache.kafka.connect.json."
                                     "JsonConverter\n"
                                     "value.converter.schemas.enable=false\n"
                                     "errors.tolerance=none\n"
                                     "snow.url=" +
                                         emu_.base_url() +
                                         "\n"
                                         "snow.auth.type=basic\n"
                                         "snow.auth.username=admin\n"
                                         "snow.auth.password=admin-emulator\n"
                                         "snow.sink.table=incident\n"
                                         "behavior.on.api.errors=log\n"
                                         "kafka.bootstrap.servers=" +
                                         bootstrap() + "\n");
  ExpectCheckPasses(path);
  auto child = Run(path);
  ASSERT_NE(child, nullptr);
  ExpectCommandBecomesARow("reference.commands");
  sidecar_->StopCleanly();
}

}  // namespace
}  // namespace snowcar
