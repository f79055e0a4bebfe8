// SPDX-License-Identifier: Apache-2.0
// snowcar: ServiceNow <-> Kafka sidecar. This file only dispatches to a subcommand.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "cli/commands.h"
#include "snowcar/common/version.h"
#include "snowcar/runtime/sidecar_metrics.h"
#include "snowcar/state/state_store.h"

namespace {

struct Command {
  std::string_view name;
  int (*main)(int, char**);
  std::string_view help;
};

constexpr Command kCommands[] = {
    {"run", snowcar::cli::RunMain, "run the sidecar: snowcar run --config FILE [--set k=v]..."},
    {"config", snowcar::cli::ConfigMain, "check, print or document configuration"},
    {"state", snowcar::cli::StateMain, "query a running sidecar over its Unix socket"},
    {"emulate", snowcar::cli::EmulateMain, "serve the in-repo ServiceNow Table API emulator"},
    {"registry", snowcar::cli::RegistryMain, "serve a Schema Registry test double"},
    {"broker", snowcar::cli::BrokerMain, "serve an embedded Kafka broker (librdkafka mock)"},
    {"demo", snowcar::cli::DemoMain, "emulator + broker + sidecar end to end, with live progress"},
};

void Usage(std::FILE* out) {
  std::fprintf(out, "usage: snowcar <command> [args]\n\ncommands:\n");
  for (const auto& c : kCommands) {
    std::fprintf(out, "  %-9.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.help.size()), c.help.data());
  }
  std::fprintf(out, "\n'snowcar <command> --help' describes one command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  // For every command, and before any thread exists: a write to a pipe or socket whose reader
  // is gone (`snowcar run ... 2>&1 | head -1`, a client hanging up) fails with EPIPE, which
  // the writer handles, instead of killing the process by default. SIGUSR1/SIGUSR2 mean
  // nothing to snowcar, so they must not kill it either; `run` logs them (runtime/sidecar.cpp).
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGUSR1, SIG_IGN);
  std::signal(SIGUSR2, SIG_IGN);
  if (argc < 2) {
    Usage(stderr);
    return 2;
  }
  const std::string_view name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    Usage(stdout);
    return 0;
  }
  if (name == "--version" || name == "version") {
    // The release and the state layout it writes: an upgrade that changes the second needs
    // the release notes read first (CHANGELOG.md).
    const std::string_view version = snowcar::SnowcarVersion();
    std::printf("snowcar %.*s (state schema %u)\n", static_cast<int>(version.size()),
                version.data(), static_cast<unsigned>(snowcar::state::kSchemaVersion));
    return 0;
  }
  for (const auto& c : kCommands) {
    if (c.name == name) return c.main(argc - 1, argv + 1);
  }
  std::fprintf(stderr, "snowcar: unknown command '%s'\n\n", argv[1]);
  Usage(stderr);
  return 2;
}
