// SPDX-License-Identifier: Apache-2.0
// snowcar registry: serves the Schema Registry test double until SIGTERM/SIGINT/SIGHUP.
//
// Like `snowcar emulate`, the first line on stdout is the base URL (flushed), so scripts and
// tests can start it with --port 0 and read where it listens.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cli/commands.h"
#include "snowcar/common/log.h"
#include "snowcar/registry/registry_server.h"

namespace snowcar::cli {
namespace {

constexpr char kRegistryUsage[] =
    "usage: snowcar registry [--port P] [--host 127.0.0.1] [--threads N]\n"
    "                        [--user U --password P]\n"
    "\n"
    "Serves a Schema Registry test double on http://HOST:PORT (port 0 picks a free port) and\n"
    "prints that base URL as the first line on stdout. Stops on SIGTERM, SIGINT or SIGHUP.\n"
    "Subjects, versions, ids and compatibility (BACKWARD by default) live in memory only.\n"
    "--user/--password require HTTP basic auth. docs/testbed.md says what it follows.\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "snowcar registry: %s\n", message.c_str());
  return 2;
}

}  // namespace

int RegistryMain(int argc, char** argv) {
  registry::RegistryServerOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kRegistryUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "snowcar registry: %s needs a value\n\n%s", argv[i], kRegistryUsage);
      return 2;
    }
    const std::string value = argv[++i];
    char* stop = nullptr;
    const long long n = std::strtoll(value.c_str(), &stop, 10);
    const bool number = !value.empty() && *stop == '\0';
    if (flag == "--port") {
      if (!number || n < 0 || n > 65535) return Fail("--port: '" + value + "' is not 0..65535");
      options.port = static_cast<uint16_t>(n);
    } else if (flag == "--host") {
      options.host = value;
    } else if (flag == "--threads") {
      if (!number || n < 1 || n > 64) return Fail("--threads: '" + value + "' is not 1..64");
      options.threads = static_cast<int>(n);
    } else if (flag == "--user") {
      options.user = value;
    } else if (flag == "--password") {
      options.password = value;
    } else {
      std::fprintf(stderr, "snowcar registry: unknown flag '%s'\n\n%s", argv[i], kRegistryUsage);
      return 2;
    }
  }

  // Block the stop signals before any thread starts, so only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  registry::RegistryServer server(options);
  if (Status started = server.Start(); !started.ok()) {
    std::fprintf(stderr, "snowcar registry: %s\n", started.message().c_str());
    return 1;
  }
  std::printf("%s\n", server.base_url().c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  SNOWCAR_LOG(kInfo, "registry.stopping",
              {{"signal", sig == SIGTERM  ? "SIGTERM"
                          : sig == SIGINT ? "SIGINT"
                                          : "SIGHUP"}});
  server.Stop();
  return 0;
}

}  // namespace snowcar::cli
