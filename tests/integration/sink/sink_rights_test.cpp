// SPDX-License-Identifier: Apache-2.0
// A sink whose integration user may not read sys_db_object (the column check's metadata): the
// commands are held, none dead-lettered or committed past, and health names the missing right
// under `sink.rights`; once the right is granted, every command is applied.
#include "sink_fixture.h"
#include "snowcar/api/client.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

size_t RowsWith(const std::vector<std::map<std::string, std::string>>& rows,
                const std::string& field, const std::string& value) {
  size_t n = 0;
  for (const auto& row : rows) {
    const auto it = row.find(field);
    n += it != row.end() && it->second == value;
  }
  return n;
}

TEST_F(SinkIntegrationTest, AForbiddenCatalogHoldsCommandsAndHealthNamesTheRight) {
  auto& store = emulator().store();
  ASSERT_TRUE(store.CreateTable("sys_db_object").ok());
  ASSERT_TRUE(store.CreateTable("sys_dictionary").ok());
  ASSERT_TRUE(store.Insert("sys_db_object", {{"sys_id", SysId(901)}, {"name", kTable}}).ok());
  ASSERT_TRUE(
      store.Insert("sys_dictionary", {{"name", kTable}, {"element", "short_description"}}).ok());
  emulator::FaultRule forbidden;
  forbidden.kind = emulator::FaultKind::kForbidden;
  forbidden.scope.path_prefix = "/api/now/table/sys_db_object";
  forbidden.share = 1.0;
  emulator().faults().AddRule(forbidden);

  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  auto sink = StartSink(topic, group,
                        {"snow.sink.unknown.field.behavior=fail", "behavior.on.api.errors=log",
                         "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);
  std::vector<testsupport::OutMessage> commands;
  commands.reserve(5);
  for (int i = 0; i < 5; ++i) {
    commands.push_back(Command(std::nullopt, Desc("held-" + std::to_string(i)), 0));
  }
  Produce(topic, commands);

  api::Client api;
  const auto health = [&] {
    auto r = api.Get(sink.socket, "/v1/health");
    return r.ok() ? r->body : std::string();
  };
  ASSERT_TRUE(WaitFor(
      [&] { return health().find("may not read sys_db_object") != std::string::npos; }, 30s))
      << health() << Tail(sink);
  EXPECT_NE(health().find("\"degraded\""), std::string::npos) << health();
  // The lane retries the first command; nothing is dead-lettered, applied or committed.
  ASSERT_TRUE(WaitFor([&] { return Metric(sink, "snowcar_sink_retries_total") >= 1; }, 30s))
      << Tail(sink);
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  EXPECT_EQ(Metric(sink, "snowcar_sink_failures_total{class=\"PERMISSION\"}"), 0);
  EXPECT_EQ(RowsWith(Rows(), "short_description", "held-0"), 0u);

  emulator().faults().Clear();  // the role is granted
  ASSERT_TRUE(WaitFor(
      [&] { return Metric(sink, "snowcar_sink_records_total{operation=\"create\"}") == 5; }, 90s))
      << JournalText() << Tail(sink);
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(RowsWith(Rows(), "short_description", "held-" + std::to_string(i)), 1u);
  }
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
