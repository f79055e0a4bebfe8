// SPDX-License-Identifier: Apache-2.0
// snowcar registry: serves the Schema Registry test double until SIGTERM/SIGINT/SIGHUP.
//
// Like `snowcar emulate`, the first line on stdout is the base URL (flushed), so scripts and
// tests can start it with --port 0 and read where it listens.
#include <cstdio>
#include <string>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/stop_signals.h"
#include "snowcar/testbed/registry/registry_server.h"

namespace snowcar::cli {
namespace {

constexpr char kRegistryAbout[] =
    "Serves a Schema Registry test double on http://HOST:PORT (port 0 picks a free port) and\n"
    "prints that base URL as the first line on stdout. Stops on SIGTERM, SIGINT or SIGHUP.\n"
    "Subjects, versions, ids and compatibility (BACKWARD by default) live in memory only.";

constexpr char kRegistryFooter[] = "docs/testbed.md says what it follows.";

}  // namespace

int RegistryMain(int argc, char** argv) {
  registry::RegistryServerOptions options;
  auto app = NewApp("registry", kRegistryAbout, kRegistryFooter);
  AddListenFlags(*app, options.port, options.host);
  app->add_option("--threads", options.threads, "threads serving requests")
      ->type_name("N")
      ->check(WholeNumber(1, 64))
      ->capture_default_str();
  app->add_option("--user", options.user, "require HTTP basic auth as this user")->type_name("U");
  app->add_option("--password", options.password, "the basic-auth password")->type_name("P");
  if (auto exit = ParseCommandLine(*app, argc, argv)) return *exit;

  // Before any thread starts: see stop_signals.h.
  const sigset_t stop_signals = BlockStopSignals();

  registry::RegistryServer server(options);
  if (Status started = server.Start(); !started.ok()) {
    std::fprintf(stderr, "snowcar registry: %s\n", started.message().c_str());
    return 1;
  }
  ServeUntilStopped(server.base_url(), stop_signals, "registry.stopping");
  server.Stop();
  return 0;
}

}  // namespace snowcar::cli
