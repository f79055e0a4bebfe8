// SPDX-License-Identifier: Apache-2.0
// snowcar emulate: serves the in-repo ServiceNow Table API emulator until SIGTERM/SIGINT.
//
// The first line on stdout is the base URL (flushed), so scripts and tests can start it with
// --port 0 and read where it listens. Everything else goes to stderr as log lines.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "snowcar/common/log.h"
#include "snowcar/emulator/data_gen.h"
#include "snowcar/emulator/emulator_server.h"

namespace snowcar::cli {
namespace {

constexpr char kEmulateUsage[] =
    "usage: snowcar emulate [--port P] [--host 127.0.0.1] [--tables t:n,...]\n"
    "                       [--seed-file F] [--seed N] [--threads N]\n"
    "                       [--user U --password P] [--client-id ID --client-secret S]\n"
    "                       [--clock real|frozen|frozen:2026-01-01T00:00:00|real:<instant>]\n"
    "                       [--auto-create-tables] [--gzip] [--idle-timeout-ms MS]\n"
    "\n"
    "Serves the ServiceNow Table API emulator on http://HOST:PORT (port 0 picks a free port)\n"
    "and prints that base URL as the first line on stdout. Stops on SIGTERM, SIGINT or SIGHUP.\n"
    "--tables creates tables with generated rows (incident:10000,change_request:500).\n"
    "Default credentials: user admin / password admin-emulator; OAuth client\n"
    "snowcar-emulator-client / snowcar-emulator-secret. Knobs: POST /_emulator/... (see\n"
    "docs/testbed.md).\n";

struct TableSpec {
  std::string name;
  size_t rows = 0;
};

Result<std::vector<TableSpec>> ParseTables(std::string_view text) {
  std::vector<TableSpec> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    TableSpec spec;
    const size_t colon = item.find(':');
    spec.name = std::string(item.substr(0, colon));
    if (colon != std::string_view::npos) {
      const std::string count(item.substr(colon + 1));
      char* stop = nullptr;
      const unsigned long long n = std::strtoull(count.c_str(), &stop, 10);
      if (count.empty() || *stop != '\0' || count[0] == '-') {
        return Status::InvalidArgument("--tables: row count '" + count + "' of table '" +
                                       spec.name + "' is not a non-negative integer");
      }
      spec.rows = static_cast<size_t>(n);
    }
    if (!emulator::IsValidTableName(spec.name)) {
      return Status::InvalidArgument("--tables: '" + spec.name +
                                     "' is not a valid table name ([a-z][a-z0-9_]*)");
    }
    out.push_back(std::move(spec));
  }
  return out;
}

Result<int64_t> ParseNumber(std::string_view flag, const std::string& value, int64_t min,
                            int64_t max) {
  char* stop = nullptr;
  const long long n = std::strtoll(value.c_str(), &stop, 10);
  if (value.empty() || *stop != '\0' || n < min || n > max) {
    return Status::InvalidArgument(std::string(flag) + ": '" + value + "' is not an integer in [" +
                                   std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return static_cast<int64_t>(n);
}

struct ClockSpec {
  bool frozen = false;
  std::optional<int64_t> at_ms;
};

Result<ClockSpec> ParseClock(const std::string& value) {
  ClockSpec spec;
  std::string mode = value;
  const size_t colon = value.find(':');
  if (colon != std::string::npos) {
    mode = value.substr(0, colon);
    auto at = emulator::ParseClockInstant(value.substr(colon + 1));
    if (!at.ok()) return Status::InvalidArgument("--clock: " + at.status().message());
    spec.at_ms = *at;
  }
  if (mode == "frozen") {
    spec.frozen = true;
  } else if (mode != "real") {
    return Status::InvalidArgument("--clock: '" + value +
                                   "' must be real, frozen, frozen:<instant> or real:<instant>");
  }
  return spec;
}

int Fail(const Status& status) {
  std::fprintf(stderr, "snowcar emulate: %s\n", status.message().c_str());
  return 2;
}

}  // namespace

int EmulateMain(int argc, char** argv) {
  emulator::EmulatorOptions options;
  std::vector<TableSpec> tables;
  std::vector<std::string> seed_files;
  uint64_t seed = 1;
  ClockSpec clock;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kEmulateUsage, stdout);
      return 0;
    }
    if (flag == "--auto-create-tables") {
      options.store.auto_create_tables = true;
      continue;
    }
    if (flag == "--gzip") {
      options.gzip = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "snowcar emulate: %s needs a value\n\n%s", argv[i], kEmulateUsage);
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--port") {
      auto n = ParseNumber(flag, value, 0, 65535);
      if (!n.ok()) return Fail(n.status());
      options.port = static_cast<uint16_t>(*n);
    } else if (flag == "--host") {
      options.host = value;
    } else if (flag == "--threads") {
      auto n = ParseNumber(flag, value, 1, 256);
      if (!n.ok()) return Fail(n.status());
      options.threads = static_cast<int>(*n);
    } else if (flag == "--tables") {
      auto parsed = ParseTables(value);
      if (!parsed.ok()) return Fail(parsed.status());
      for (auto& t : *parsed) tables.push_back(std::move(t));
    } else if (flag == "--idle-timeout-ms") {
      auto n = ParseNumber(flag, value, 0, INT64_MAX);
      if (!n.ok()) return Fail(n.status());
      options.idle_timeout_ms = *n;
    } else if (flag == "--seed-file") {
      seed_files.push_back(value);
    } else if (flag == "--seed") {
      auto n = ParseNumber(flag, value, 0, INT64_MAX);
      if (!n.ok()) return Fail(n.status());
      seed = static_cast<uint64_t>(*n);
    } else if (flag == "--user") {
      options.user = value;
    } else if (flag == "--password") {
      options.password = value;
    } else if (flag == "--client-id") {
      options.client_id = value;
    } else if (flag == "--client-secret") {
      options.client_secret = value;
    } else if (flag == "--clock") {
      auto parsed = ParseClock(value);
      if (!parsed.ok()) return Fail(parsed.status());
      clock = *parsed;
    } else {
      std::fprintf(stderr, "snowcar emulate: unknown flag '%s'\n\n%s", argv[i], kEmulateUsage);
      return 2;
    }
  }

  // Block the stop signals before any thread starts, so every thread inherits the mask and
  // only sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGHUP);  // a closed terminal: stop as for Ctrl-C
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  emulator::EmulatorServer server(options);
  if (clock.at_ms.has_value()) {
    clock.frozen ? server.clock().FreezeAt(*clock.at_ms) : server.clock().Set(*clock.at_ms);
  } else if (clock.frozen) {
    server.clock().Freeze();
  }
  for (const auto& file : seed_files) {
    const Status st = emulator::LoadSeedFile(server.store(), file);
    if (!st.ok()) {
      std::fprintf(stderr, "snowcar emulate: seed file: %s\n", st.message().c_str());
      return 1;
    }
  }
  for (const auto& t : tables) {
    Status st = server.store().CreateTable(t.name);
    if (st.ok() && t.rows > 0) {
      emulator::GenOptions gen;
      gen.rows = t.rows;
      gen.seed = seed;
      st = emulator::Populate(server.store(), t.name, gen);
    }
    if (!st.ok()) {
      std::fprintf(stderr, "snowcar emulate: table %s: %s\n", t.name.c_str(), st.message().c_str());
      return 1;
    }
  }
  const Status started = server.Start();
  if (!started.ok()) {
    std::fprintf(stderr, "snowcar emulate: %s\n", started.message().c_str());
    return 1;
  }
  std::printf("%s\n", server.base_url().c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  SNOWCAR_LOG(kInfo, "emulator.stopping",
              {{"signal", sig == SIGTERM  ? "SIGTERM"
                          : sig == SIGINT ? "SIGINT"
                                          : "SIGHUP"}});
  server.Stop();
  return 0;
}

}  // namespace snowcar::cli
