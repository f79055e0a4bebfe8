// SPDX-License-Identifier: Apache-2.0
// snowcar emulate: serves the in-repo ServiceNow Table API emulator until SIGTERM/SIGINT.
//
// The first line on stdout is the base URL (flushed), so scripts and tests can start it with
// --port 0 and read where it listens. Everything else goes to stderr as log lines.
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/stop_signals.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"

namespace snowcar::cli {
namespace {

constexpr char kEmulateAbout[] =
    "Serves the ServiceNow Table API emulator on http://HOST:PORT (port 0 picks a free port)\n"
    "and prints that base URL as the first line on stdout. Stops on SIGTERM, SIGINT or SIGHUP.";

constexpr char kEmulateFooter[] =
    "Knobs (faults, latency, the live writer): POST /_emulator/... (see docs/testbed.md).";

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

}  // namespace

int EmulateMain(int argc, char** argv) {
  emulator::EmulatorOptions options;
  std::vector<TableSpec> tables;
  std::vector<std::string> seed_files;
  uint64_t seed = 1;
  ClockSpec clock;
  std::vector<std::string> table_lists;
  std::string clock_text;
  auto app = NewApp("emulate", kEmulateAbout, kEmulateFooter);
  AddListenFlags(*app, options.port, options.host);
  app->add_option("--tables", table_lists,
                  "tables with generated rows, e.g. incident:10000,change_request:500")
      ->type_name("t:n,...");
  app->add_option("--seed-file", seed_files,
                  "load rows from a JSON file {\"<table>\":[{...},...]} (repeatable)")
      ->type_name("F");
  app->add_option("--seed", seed, "seed of the generated rows")
      ->type_name("N")
      ->check(WholeNumber(0, INT64_MAX))
      ->capture_default_str();
  app->add_option("--threads", options.threads, "threads serving requests")
      ->type_name("N")
      ->check(WholeNumber(1, 256))
      ->capture_default_str();
  app->add_option("--user", options.user, "basic-auth user")->type_name("U")->capture_default_str();
  app->add_option("--password", options.password, "basic-auth password")
      ->type_name("P")
      ->capture_default_str();
  app->add_option("--client-id", options.client_id, "OAuth client id")
      ->type_name("ID")
      ->capture_default_str();
  app->add_option("--client-secret", options.client_secret, "OAuth client secret")
      ->type_name("S")
      ->capture_default_str();
  app->add_option("--clock", clock_text,
                  "the emulator's clock: real, frozen, or either at an instant")
      ->type_name("real|frozen|frozen:2026-01-01T00:00:00|real:<instant>");
  app->add_flag("--auto-create-tables", options.store.auto_create_tables,
                "create an unknown table on first use instead of refusing it");
  app->add_flag("--gzip", options.gzip, "gzip answers to clients that send Accept-Encoding: gzip");
  app->add_option("--idle-timeout-ms", options.idle_timeout_ms,
                  "close a connection idle this long (0: never)")
      ->type_name("MS")
      ->check(WholeNumber(0, INT64_MAX))
      ->capture_default_str();
  if (auto exit = ParseCommandLine(*app, argc, argv)) return *exit;
  for (const std::string& list : table_lists) {
    auto parsed = ParseTables(list);
    if (!parsed.ok()) return UsageError(*app, parsed.status().message(), std::cerr);
    for (auto& t : *parsed) tables.push_back(std::move(t));
  }
  if (!clock_text.empty()) {
    auto parsed = ParseClock(clock_text);
    if (!parsed.ok()) return UsageError(*app, parsed.status().message(), std::cerr);
    clock = *parsed;
  }

  // Before any thread starts: see stop_signals.h.
  const sigset_t stop_signals = BlockStopSignals();

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
  ServeUntilStopped(server.base_url(), stop_signals, "emulator.stopping");
  server.Stop();
  return 0;
}

}  // namespace snowcar::cli
