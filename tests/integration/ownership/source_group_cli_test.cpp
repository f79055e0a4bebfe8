// SPDX-License-Identifier: Apache-2.0
// The path a user follows to try source scale-out: `snowcar emulate`, `snowcar broker` and
// `snowcar run` with source.group.id, three processes, no topic created by hand. The sidecar
// creates the group's coordination and changelog topics through the Admin API, exactly as it
// would against Apache Kafka, starts its table and produces every row.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "snowcar/api/client.h"
#include "support/child_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using testsupport::ChildProcess;

constexpr int kRows = 40;

std::unique_ptr<ChildProcess> StartPrinting(const std::vector<std::string>& args,
                                            std::string* first_line) {
  auto child = ChildProcess::Spawn(SNOWCAR_BINARY, {.args = args, .capture_stderr = true});
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  if (!child.ok()) return nullptr;
  auto line = (*child)->ReadLine(30s);
  EXPECT_TRUE(line.ok()) << args[0] << ": " << line.status().ToString() << "\n"
                         << (*child)->Stderr();
  if (line.ok()) *first_line = *line;
  return std::move(child).value();
}

boost::json::value SocketJson(const std::string& socket, const std::string& path) {
  auto r = api::Client().Get(socket, path);
  if (!r.ok() || r->status != 200) return nullptr;
  boost::system::error_code ec;
  auto v = boost::json::parse(r->body, ec);
  return ec ? boost::json::value(nullptr) : v;
}

int64_t RowsEmitted(const std::string& socket) {
  auto v = SocketJson(socket, "/v1/source/tables/incident");
  if (!v.is_object()) return -1;
  const auto* counters = v.as_object().if_contains("counters");
  const auto& holder =
      counters != nullptr && counters->is_object() ? counters->as_object() : v.as_object();
  const auto* emitted = holder.if_contains("rows_emitted");
  return emitted != nullptr && emitted->is_int64() ? emitted->as_int64() : -1;
}

TEST(SourceGroupFromTheCommandLine, StartsAndProducesWithNoTopicMadeByHand) {
  testsupport::TempDir dir("snowcar-srcgrp");
  std::string base_url;
  auto emulator = StartPrinting(
      {"emulate", "--port", "0", "--tables", "incident:" + std::to_string(kRows)}, &base_url);
  ASSERT_NE(emulator, nullptr);
  std::string bootstrap;
  auto broker = StartPrinting({"broker"}, &bootstrap);  // no --topics: nothing exists
  ASSERT_NE(broker, nullptr);

  const std::string socket = dir.File("s.sock");
  const std::string group = testsupport::UniqueName("acme-source");
  std::vector<std::string> args = {
      "run", "--config",
      std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/source-and-sink.properties"};
  for (const std::string& set : std::vector<std::string>{
           "snow.url=" + base_url, "kafka.bootstrap.servers=" + bootstrap, "sink.enabled=false",
           "source.group.id=" + group, "kafka.session.timeout.ms=6000",
           "state.dir=" + dir.File("state"), "socket.path=" + socket, "shutdown.timeout.ms=5000"}) {
    args.push_back("--set");
    args.push_back(set);
  }
  auto run = ChildProcess::Spawn(SNOWCAR_BINARY, {.args = args, .capture_stderr = true});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  ChildProcess& sidecar = **run;

  ASSERT_TRUE(testsupport::WaitFor([&] { return RowsEmitted(socket) == kRows; }, 120s))
      << "rows emitted: " << RowsEmitted(socket) << "\n"
      << sidecar.Stderr() << "\nbroker:\n"
      << broker->Stderr();
  auto ownership = SocketJson(socket, "/v1/source/ownership");
  ASSERT_TRUE(ownership.is_object()) << sidecar.Stderr();
  EXPECT_EQ(ownership.as_object().at("coordination_topic").as_string(), group + ".tables");
  EXPECT_EQ(ownership.as_object().at("owned").as_array().size(), 1u);
  const std::string log = sidecar.Stderr();
  EXPECT_NE(log.find("source.group.topic_created"), std::string::npos) << log;
  EXPECT_NE(broker->Stderr().find("broker.topic_created"), std::string::npos);

  ASSERT_TRUE(sidecar.Signal(SIGTERM).ok());
  auto exit = sidecar.Wait(30s);
  ASSERT_TRUE(exit.ok()) << exit.status().ToString();
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << sidecar.Stderr();
  for (ChildProcess* child : {broker.get(), emulator.get()}) {
    ASSERT_TRUE(child->Signal(SIGTERM).ok());
    auto stopped = child->Wait(30s);
    ASSERT_TRUE(stopped.ok()) << stopped.status().ToString();
  }
}

}  // namespace
}  // namespace snowcar
