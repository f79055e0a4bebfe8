// SPDX-License-Identifier: Apache-2.0
// The option table is the one source of every default. The typed settings structs repeat the
// table's defaults as member initializers so that a default-constructed struct (in tests,
// benchmarks and in-process tools) behaves as a properties file without the key does; this
// test is what keeps each repetition true. A failure here means a header and the option table
// disagree: change the header, never the expectation (`snowcar config docs` prints the table).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "snowcar/config/config.h"
#include "snowcar/runtime/sidecar.h"
#include "snowcar/schema_registry/registry_options.h"
#include "snowcar/servicenow/client_options.h"
#include "snowcar/sink/sink_settings.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar {
namespace {

// Only what every reader requires, and nothing with a default.
std::map<std::string, std::string> RequiredKeys() {
  return {{"snow.url", "https://acme.service-now.com"},
          {"snow.auth.username", "svc"},
          {"snow.auth.password", "pw-not-shown"},
          {"snow.tables", "inc"},
          {"snow.table.inc.name", "incident"},
          {"snow.table.inc.topic", "sn.incident"},
          {"snow.sink.topics", "commands"},
          {"snow.sink.table", "incident"}};
}

config::Config Load() {
  auto config = config::Config::FromMap(RequiredKeys());
  if (!config.ok()) throw std::runtime_error(config.status().ToString());
  return std::move(config).value();
}

TEST(SettingsDefaults, SourceSettingsAreTheOptionTables) {
  const config::Config config = Load();
  auto read = source::SourceSettings::FromConfig(config);
  ASSERT_TRUE(read.ok()) << read.status().ToString();

  source::SourceSettings expected;
  expected.instance = "acme.service-now.com";
  expected.username = "svc";
  // sink.enabled's default decides the echo mode: the sink runs, so its writes are marked.
  expected.echo = config.GetBool("sink.enabled") ? source::EchoMode::kMark : source::EchoMode::kOff;
  source::TableSettings table;
  table.alias = "inc";
  table.name = "incident";
  table.topic = "sn.incident";
  expected.tables = {table};

  ASSERT_EQ(read->tables.size(), 1u);
  EXPECT_TRUE(read->tables[0] == table) << "TableSettings' initializers differ from the table";
  EXPECT_TRUE(*read == expected) << "SourceSettings' initializers differ from the option table";
  EXPECT_TRUE(read->dedup_policy() == state::DedupPolicy{})
      << "DedupPolicy's initializers differ from snow.source.overlap.seconds or "
         "snow.source.dedup.window.records";
}

TEST(SettingsDefaults, SinkSettingsAreTheOptionTables) {
  auto read = sink::SinkSettings::FromConfig(Load());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  sink::SinkSettings expected;
  expected.topics = {"commands"};
  expected.table = "incident";
  expected.instance = "acme.service-now.com";
  expected.username = "svc";
  EXPECT_TRUE(*read == expected) << "SinkSettings' initializers differ from the option table";
  EXPECT_TRUE(read->origin == state::OriginPolicy{})
      << "OriginPolicy's initializers differ from snow.sink.origin.window.*";
}

TEST(SettingsDefaults, ServiceNowClientOptionsAreTheOptionTables) {
  auto read = servicenow::ClientOptionsFromConfig(Load());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  servicenow::ClientOptions expected;
  expected.base_url = "https://acme.service-now.com";
  expected.username = "svc";
  expected.password = "pw-not-shown";
  // The table's default is "{snow.url}/oauth_token.do", which the loader fills in; an empty
  // token_url names the same endpoint (EffectiveTokenUrl).
  EXPECT_EQ(read->EffectiveTokenUrl(), expected.EffectiveTokenUrl());
  expected.token_url = read->token_url;
  EXPECT_TRUE(read->retry == servicenow::RetryPolicy{})
      << "RetryPolicy's initializers differ from snow.retry.*";
  EXPECT_TRUE(*read == expected) << "ClientOptions' initializers differ from the option table";
}

TEST(SettingsDefaults, RegistryOptionsAreTheOptionTables) {
  auto read = schema_registry::RegistryOptionsFromConfig(Load());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(*read == schema_registry::RegistryOptions{})
      << "RegistryOptions' initializers differ from the option table";
}

TEST(SettingsDefaults, SidecarSettingsAreTheOptionTables) {
  const config::Config config = Load();
  const runtime::SidecarSettings read = runtime::SidecarSettings::FromConfig(config);
  runtime::SidecarSettings expected;
  // No default of its own: these are the option table's values, which depend on the host.
  expected.state_dir = config.GetString("state.dir");
  expected.socket_path = config.GetString("socket.path");
  expected.source_enabled = config.GetBool("source.enabled");
  expected.sink_enabled = config.GetBool("sink.enabled");
  EXPECT_TRUE(read == expected) << "SidecarSettings' initializers differ from the option table";
}

// The test above would pass if FromConfig forgot a key whose default equals the initializer;
// a changed value shows that each shared key is read at all.
TEST(SettingsDefaults, SharedKeysReachTheirStructs) {
  auto keys = RequiredKeys();
  keys["snow.retry.initial.backoff.ms"] = "750";
  keys["snow.retry.max.backoff.ms"] = "9000";
  keys["shutdown.timeout.ms"] = "4000";
  keys["kafka.group.instance.id"] = "replica-0";
  keys["source.group.id"] = "tables";
  keys["source.group.replica.id"] = "r0";
  keys["source.group.snapshot.interval.ms"] = "2500";
  keys["snow.sink.origin.window.records"] = "7";
  keys["snow.sink.origin.window.seconds"] = "60";
  keys["snow.source.echo"] = "suppress";
  keys["sink.enabled"] = "true";
  auto config = config::Config::FromMap(keys);
  ASSERT_TRUE(config.ok()) << config.status().ToString();

  auto source = source::SourceSettings::FromConfig(*config);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_EQ(source->retry_initial_backoff_ms, 750);
  EXPECT_EQ(source->retry_max_backoff_ms, 9000);
  EXPECT_EQ(source->group_id, "tables");
  EXPECT_EQ(source->group_replica_id, "r0");
  EXPECT_EQ(source->group_snapshot_interval_ms, 2500);
  EXPECT_EQ(source->group_instance_id, "replica-0");
  EXPECT_EQ(source->echo, source::EchoMode::kSuppress);

  auto sink = sink::SinkSettings::FromConfig(*config);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  EXPECT_EQ(sink->retry_initial_backoff_ms, 750);
  EXPECT_EQ(sink->retry_max_backoff_ms, 9000);
  EXPECT_EQ(sink->shutdown_timeout_ms, 4000);
  EXPECT_EQ(sink->group_instance_id, "replica-0");
  EXPECT_EQ(sink->origin.window_records, 7u);
  EXPECT_EQ(sink->origin.window_seconds, 60);

  const runtime::SidecarSettings sidecar = runtime::SidecarSettings::FromConfig(*config);
  EXPECT_EQ(sidecar.source_group_id, "tables");
  EXPECT_EQ(sidecar.group_instance_id, "replica-0");
  EXPECT_EQ(sidecar.shutdown_timeout_ms, 4000);
}

}  // namespace
}  // namespace snowcar
