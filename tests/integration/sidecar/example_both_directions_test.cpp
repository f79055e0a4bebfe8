// SPDX-License-Identifier: Apache-2.0
// The shipped example (docs/examples/source-and-sink.properties) runs both directions in one
// process: rows of the emulator's table reach their topic, a command on the command topic
// becomes a row, the socket shows both views, and SIGTERM stops it cleanly. Only the
// addresses and directions are overridden, so the example cannot drift from what works.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/sidecar_process.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

class ExampleConfigTest : public testsupport::EmbeddedBrokerTest {};

using testsupport::JsonInt;

TEST_F(ExampleConfigTest, BothDirectionsRunFromTheShippedExample) {
  emulator::EmulatorServer emu;
  ASSERT_TRUE(emu.store().CreateTable("incident").ok());
  ASSERT_TRUE(emulator::Populate(emu.store(), "incident", {.rows = 30}).ok());
  ASSERT_TRUE(emu.Start().ok());

  auto sidecar = testsupport::SidecarProcess::Start(
      testsupport::ExampleConfig("source-and-sink.properties"),
      {"snow.url=" + emu.base_url(), "kafka.bootstrap.servers=" + bootstrap(),
       "kafka.session.timeout.ms=6000"},
      "snowcar-example");
  ASSERT_NE(sidecar, nullptr);
  const auto get = [&](const char* target) { return sidecar->Get(target); };
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
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return testsupport::TableHasRows(emu, "incident", 31); }, 60s))
      << get("/v1/sink/partitions");
  const std::string metrics = get("/metrics");
  EXPECT_NE(metrics.find("snowcar_sink_records_total"), std::string::npos);
  // Every row is acknowledged by now, so the source's producer queue is empty.
  EXPECT_NE(metrics.find("snowcar_kafka_producer_queue_length{client=\"source\"} 0"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("snowcar_kafka_producer_queue_length{client=\"sink\"} 0"),
            std::string::npos);

  sidecar->StopCleanly();
}

}  // namespace
}  // namespace snowcar
