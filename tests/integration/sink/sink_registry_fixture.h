// SPDX-License-Identifier: Apache-2.0
// The sink fixture plus the Schema Registry test double (over a real socket): what the tests
// of framed commands (Avro, Protobuf) share. Header-only and apart from sink_fixture.h so that
// only these tests link the registry.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sink_fixture.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "support/wait.h"

namespace snowcar::sinkit {

class SinkRegistryTest : public SinkIntegrationTest {
 protected:
  void TearDown() override {
    registry_.Stop();
    SinkIntegrationTest::TearDown();
  }

  // Starts the registry and registers `schema` as commands-value; its id in schema_id_. For
  // a subclass's SetUp, after SinkIntegrationTest::SetUp.
  void StartRegistryWithCommands(schema_registry::SchemaType type, const char* schema) {
    ASSERT_TRUE(registry_.Start().ok());
    auto id = Register("commands-value", type, schema);
    ASSERT_TRUE(id.ok()) << id.status().message();
    schema_id_ = *id;
  }

  // Registers `schema` under `subject` with a client of its own; the id the registry gave.
  Result<int32_t> Register(const std::string& subject, schema_registry::SchemaType type,
                           const char* schema) {
    schema_registry::RegistryOptions o;
    o.url = registry_.base_url();
    auto client = schema_registry::SchemaRegistryClient::Create(o);
    if (!client.ok()) return client.status();
    return (*client)->RegisterSchema(subject, type, schema);
  }

  // Whether `group` commits up to `offset` on partition 0 of `topic` within 60 s; a failure
  // names the offset it got to and shows the end of the sink's log.
  ::testing::AssertionResult CommitsWithin(const std::string& group, const std::string& topic,
                                           int64_t offset, const SinkProcess& sink) {
    if (testsupport::WaitFor([&] { return Committed(group, topic, 1)[0] == offset; },
                             std::chrono::seconds(60), std::chrono::milliseconds(100))) {
      return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "committed " << Committed(group, topic, 1)[0] << "\n"
                                         << Tail(sink);
  }

  // The rows of the table whose short_description is `text`, in insertion order.
  std::vector<std::map<std::string, std::string>> RowsWithText(const std::string& text) {
    std::vector<std::map<std::string, std::string>> out;
    for (auto& row : Rows()) {
      auto it = row.find("short_description");
      if (it != row.end() && it->second == text) out.push_back(std::move(row));
    }
    return out;
  }

  // A record for partition 0 of the commands topic.
  static testsupport::OutMessage Command(std::optional<std::string> key, std::string value) {
    testsupport::OutMessage m;
    m.key = std::move(key);
    m.value = std::move(value);
    m.partition = 0;
    return m;
  }

  registry::RegistryServer registry_{{}};
  int32_t schema_id_ = 0;
};

}  // namespace snowcar::sinkit
