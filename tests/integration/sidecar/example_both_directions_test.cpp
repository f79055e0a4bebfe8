// SPDX-License-Identifier: Apache-2.0
// The shipped example (docs/examples/source-and-sink.properties) runs both directions in one
// process: rows of the emulator's table reach their topic, a command on the command topic
// becomes a row, the socket shows both views, and SIGTERM stops it cleanly. Only the
// addresses and directions are overridden, so the example cannot drift from what works.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <string>

#include "snowcar/api/client.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/child_process.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

class ExampleConfigTest : public testsupport::EmbeddedBrokerTest {};

int64_t JsonInt(const std::string& body, const char* field) {
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object() || !v.as_object().contains(field)) return -1;
  const auto& f = v.as_object().at(field);
  return f.is_int64() ? f.as_int64() : -1;
}

TEST_F(ExampleConfigTest, BothDirectionsRunFromTheShippedExample) {
  emulator::EmulatorServer emu;
  ASSERT_TRUE(emu.store().CreateTable("incident").ok());
  ASSERT_TRUE(emulator::Populate(emu.store(), "incident", {.rows = 30}).ok());
  ASSERT_TRUE(emu.Start().ok());

  testsupport::TempDir dir("snowcar-example");
  const std::string socket = dir.File("snowcar.sock");
  testsupport::ChildOptions options;
  options.args = {"run",
                  "--config",
                  std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/source-and-sink.properties",
                  "--set",
                  "snow.url=" + emu.base_url(),
                  "--set",
                  "kafka.bootstrap.servers=" + bootstrap(),
                  "--set",
                  "kafka.session.timeout.ms=6000",
                  "--set",
                  "state.dir=" + dir.File("state"),
                  "--set",
                  "socket.path=" + socket};
  auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
  ASSERT_TRUE(child.ok()) << child.status().message();

  api::Client client;
  const auto get = [&](const char* target) {
    auto r = client.Get(socket, target);
    return (r.ok() && r->status == 200) ? r->body : std::string();
  };
  // Source: every generated row is emitted.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return JsonInt(get("/v1/source/tables/incident"), "rows_emitted") == 30; }, 60s))
      << get("/v1/source/tables/incident");

  // Sink: a CREATE command (no key, no sys_id) becomes row number 31.
  auto producer = testsupport::TestProducer::Create(bootstrap());
  ASSERT_TRUE(producer.ok());
  testsupport::OutMessage command;
  command.value = R"({"short_description":"from kafka","correlation_id":"example-1"})";
  ASSERT_TRUE((*producer)->ProduceAll("snow.commands", {command}, 30s).ok());
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto rows = emu.store().Snapshot("incident");
        return rows.ok() && rows->size() == 31;
      },
      60s))
      << get("/v1/sink/partitions");
  const std::string metrics = get("/metrics");
  EXPECT_NE(metrics.find("snowcar_sink_records_total"), std::string::npos);
  // Every row is acknowledged by now, so the source's producer queue is empty.
  EXPECT_NE(metrics.find("snowcar_kafka_producer_queue_length{client=\"source\"} 0"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("snowcar_kafka_producer_queue_length{client=\"sink\"} 0"),
            std::string::npos);

  ASSERT_TRUE((*child)->Signal(SIGTERM).ok());
  auto exit = (*child)->Wait(30s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString();
}

}  // namespace
}  // namespace snowcar
