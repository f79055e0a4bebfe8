// SPDX-License-Identifier: Apache-2.0
#include "support/sidecar_process.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <csignal>

#include "snowcar/api/client.h"

namespace snowcar::testsupport {

std::string ExampleConfig(std::string_view name) {
  return std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/" + std::string(name);
}

SidecarProcess::SidecarProcess(std::string_view dir_prefix)
    : dir_(dir_prefix), socket_(dir_.File("snowcar.sock")) {}

SidecarProcess::~SidecarProcess() = default;

std::unique_ptr<SidecarProcess> SidecarProcess::Start(const std::string& config,
                                                      const std::vector<std::string>& sets,
                                                      std::string_view dir_prefix) {
  std::unique_ptr<SidecarProcess> sidecar(new SidecarProcess(dir_prefix));
  ChildOptions options;
  options.args = {"run",
                  "--config",
                  config,
                  "--set",
                  "state.dir=" + sidecar->dir_.File("state"),
                  "--set",
                  "socket.path=" + sidecar->socket_};
  for (const auto& set : sets) {
    options.args.push_back("--set");
    options.args.push_back(set);
  }
  options.capture_stderr = true;
  auto child = ChildProcess::Spawn(SNOWCAR_BINARY, options);
  EXPECT_TRUE(child.ok()) << child.status().message();
  if (!child.ok()) return nullptr;
  sidecar->child_ = std::move(child).value();
  return sidecar;
}

std::string SidecarProcess::Get(const std::string& target) const {
  auto r = api::Client().Get(socket_, target);
  return (r.ok() && r->status == 200) ? r->body : std::string();
}

void SidecarProcess::StopCleanly() {
  ASSERT_TRUE(child_->Signal(SIGTERM).ok());
  auto exit = child_->Wait(std::chrono::seconds(30));
  ASSERT_TRUE(exit.ok()) << exit.status().message();
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << child_->Stderr();
}

int64_t JsonInt(const std::string& body, const char* field) {
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object() || !v.as_object().contains(field)) return -1;
  const auto& f = v.as_object().at(field);
  return f.is_int64() ? f.as_int64() : -1;
}

bool TableHasRows(emulator::EmulatorServer& emu, const std::string& table, size_t rows) {
  auto snapshot = emu.store().Snapshot(table);
  return snapshot.ok() && snapshot->size() == rows;
}

}  // namespace snowcar::testsupport
