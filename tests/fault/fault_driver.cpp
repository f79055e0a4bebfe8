// SPDX-License-Identifier: Apache-2.0
// fault_driver: runs snowcar's fault scenarios against real processes (snowcar emulate,
// snowcar broker, snowcar run) and prints one table per scenario. Exits 1 when anything was
// lost, a duplicate bound was passed or another check failed.
//
//   fault_driver --quick            every scenario, a few rounds each (part of `make test`)
//   fault_driver --long             hundreds of kill -9 rounds (`make test-faults`)
//   fault_driver --only NAME ...    just these scenarios (names as --list prints them)
#include <curl/curl.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "scenarios.h"

namespace {

using snowcar::fault::Row;
using snowcar::fault::RunOptions;

struct Scenario {
  const char* name;
  const char* title;
  std::function<std::vector<Row>(const RunOptions&)> run;
};

const std::vector<Scenario>& Scenarios() {
  using namespace snowcar::fault;
  static const std::vector<Scenario> all = {
      {"source-kill9", "Source: kill -9", SourceKillNine},
      {"source-backlog", "Source: kill -9 while a backlog builds", SourceBacklog},
      {"source-sigterm", "Source: SIGTERM", SourceSigterm},
      {"sink-kill9", "Sink: kill -9", SinkKillNine},
      {"sink-sigterm", "Sink: SIGTERM", SinkSigterm},
      {"broker", "Kafka broker faults (source)", BrokerFaults},
      {"servicenow", "ServiceNow faults (source)", ServiceNowFaults},
      {"disk", "Disk full and read-only state.dir", DiskFaults},
      {"corrupt", "Corrupt or truncated state.dir", CorruptState},
      {"eviction-check", "The checker against a topic the broker truncated", EvictionCheck},
  };
  return all;
}

int Usage() {
  std::fprintf(stderr,
               "usage: fault_driver (--quick | --long) [--seed N] [--only NAME]... | --list\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // tables show up as they finish
  curl_global_init(CURL_GLOBAL_DEFAULT);
  RunOptions options;
  options.seed = std::random_device{}();
  bool mode_given = false;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick" || a == "--long") {
      options.long_run = a == "--long";
      mode_given = true;
    } else if (a == "--seed" && i + 1 < argc) {
      options.seed = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--only" && i + 1 < argc) {
      only.push_back(argv[++i]);
    } else if (a == "--list") {
      for (const auto& s : Scenarios()) std::printf("%s\t%s\n", s.name, s.title);
      return 0;
    } else {
      return Usage();
    }
  }
  if (!mode_given) return Usage();
  for (const auto& name : only) {
    bool known = false;
    for (const auto& s : Scenarios()) known = known || name == s.name;
    if (!known) {
      std::fprintf(stderr, "fault_driver: unknown scenario '%s' (see --list)\n", name.c_str());
      return 2;
    }
  }
  std::printf("fault_driver %s, seed %u\n", options.long_run ? "--long" : "--quick", options.seed);
  int failed = 0;
  int void_rows = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& s : Scenarios()) {
    if (!only.empty() && std::find(only.begin(), only.end(), s.name) == only.end()) continue;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Row> rows = s.run(options);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char title[256];
    std::snprintf(title, sizeof title, "%s (%s, %.0f s)", s.title, s.name, secs);
    snowcar::fault::PrintTable(title, rows);
    for (const auto& r : rows) {
      failed += r.pass() ? 0 : 1;
      void_rows += r.evicted > 0 ? 1 : 0;
    }
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\n%s: %d failed row(s)", failed ? "FAIL" : "PASS", failed);
  // A VOID row proves nothing either way: the broker dropped records the check needed.
  if (void_rows > 0)
    std::printf(" (%d VOID: the broker evicted records, the check is void)", void_rows);
  std::printf(", %.0f s in all\n", total);
  return failed ? 1 : 0;
}
