// SPDX-License-Identifier: Apache-2.0
// The shared sidecar-process fixture for integration tests (library snowcar::sidecar_fixture):
// `snowcar run` as a real process, with its state dir and socket in a temp dir of its own,
// asked over its Unix socket, and stopped with SIGTERM expecting a clean exit.
//
//   auto sidecar = testsupport::SidecarProcess::Start(testsupport::ExampleConfig(
//       "source-and-sink.properties"), {"snow.url=" + emu.base_url(), ...});
//   ASSERT_NE(sidecar, nullptr);
//   ASSERT_TRUE(testsupport::WaitFor([&] { return sidecar->Get("/v1/ready") != ""; }, 60s));
//   sidecar->StopCleanly();
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace snowcar::testsupport {

// <source tree>/docs/examples/<name>: the shipped examples the tests run unchanged.
std::string ExampleConfig(std::string_view name);

class SidecarProcess {
 public:
  // `snowcar run --config <config>` with state.dir and socket.path in a fresh temp dir named
  // after `dir_prefix`, then `--set` each of `sets` (key=value); stderr captured. Null, and the
  // test failed, when the process cannot be started.
  static std::unique_ptr<SidecarProcess> Start(const std::string& config,
                                               const std::vector<std::string>& sets,
                                               std::string_view dir_prefix = "snowcar-sidecar");
  ~SidecarProcess();

  ChildProcess& child() { return *child_; }
  const std::string& socket() const { return socket_; }
  // GET on the sidecar's socket: the body, or "" unless it answered 200.
  std::string Get(const std::string& target) const;
  // SIGTERM; the test fails unless the process exits 0 within 30 s (stderr in the message).
  void StopCleanly();

 private:
  SidecarProcess(std::string_view dir_prefix);

  TempDir dir_;
  std::string socket_;
  std::unique_ptr<ChildProcess> child_;
};

// The integer `field` of a JSON object in `body` (a socket answer); -1 when absent or not one.
int64_t JsonInt(const std::string& body, const char* field);

// True once the emulator's `table` holds exactly `rows` rows (the sink applied what it should).
bool TableHasRows(emulator::EmulatorServer& emu, const std::string& table, size_t rows);

}  // namespace snowcar::testsupport
