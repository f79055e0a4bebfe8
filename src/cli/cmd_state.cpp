// SPDX-License-Identifier: Apache-2.0
// snowcar state ...: query a running sidecar over its Unix socket, or (--state-dir) read a
// stopped one's state store directly. The logic lives in its own library (cli/state_cli.h)
// so tests can run it in-process; this file only supplies the real environment and the
// RocksDB store.
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/state_cli.h"
#include "snowcar/common/log.h"
#include "snowcar/state/state_store.h"

namespace snowcar::cli {

int StateMain(int argc, char** argv) {
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  // A command-line tool: the answer is the output; only warnings from the libraries below
  // (e.g. the state store opened offline) are worth a line, and in plain text.
  log::SetLevel(log::Level::kWarn);
  log::SetFormat(log::Format::kText);
  StateCliEnv env;
  env.open_store = [](const std::string& dir) {
    state::StateStoreOptions options;
    options.dir = dir;
    // Inspecting a dir must never create an empty store there (a typo would look "reset").
    options.create_if_missing = false;
    return state::StateStore::Open(options);
  };
  return RunStateCli(args, std::cout, std::cerr, env);
}

}  // namespace snowcar::cli
