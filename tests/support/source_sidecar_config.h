// SPDX-License-Identifier: Apache-2.0
// The configuration a source-only test sidecar starts from, shared by the source's integration
// tests and the fault suite so both run the sidecar the same way. Header-only: a test that
// includes it links nothing more.
#pragma once

#include <map>
#include <string>

#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/temp_dir.h"

namespace snowcar::testsupport {

// State and socket under `dir`; the emulator at `snow_url` with its default credentials, quick
// retries; table `incident` (alias inc) into `topic` on `bootstrap`; two threads, JSON logs.
// Each test sets its own poll interval and batch size, and whatever else it varies.
inline std::map<std::string, std::string> SourceSidecarConfig(const TempDir& dir,
                                                              const std::string& snow_url,
                                                              const std::string& topic,
                                                              const std::string& bootstrap) {
  return {
      {"state.dir", dir.File("state")},
      {"socket.path", dir.File("run/snowcar.sock")},
      {"source.enabled", "true"},
      {"sink.enabled", "false"},
      {"threads", "2"},
      {"log.format", "json"},
      {"snow.url", snow_url},
      {"snow.auth.username", emulator::kDefaultUser},
      {"snow.auth.password", emulator::kDefaultPassword},
      {"snow.retry.initial.backoff.ms", "50"},
      {"snow.retry.max.backoff.ms", "400"},
      {"snow.tables", "inc"},
      {"snow.table.inc.name", "incident"},
      {"snow.table.inc.topic", topic},
      {"kafka.bootstrap.servers", bootstrap},
  };
}

}  // namespace snowcar::testsupport
