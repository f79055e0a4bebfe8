// SPDX-License-Identifier: Apache-2.0
// snowcar demo: the embedded default end to end (`make demo`). The demo is its own module
// (src/demo); this file parses its command line and forwards to it.
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_args.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "demo/demo.h"

namespace snowcar::cli {
namespace {

constexpr const char* kDemoAbout =
    "Runs the embedded default end to end: the ServiceNow emulator with a live writer, the\n"
    "embedded Kafka broker and one sidecar with both directions, as child processes in one\n"
    "process group. Prints progress every second, shows `snowcar state` answering, restarts\n"
    "the sidecar and counts what the restart emitted twice. Stops on Ctrl-C.";

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace

std::optional<int> ParseDemoArgs(const std::vector<std::string>& args, demo::Options& options,
                                 std::ostream& out, std::ostream& err) {
  std::string tables;
  auto app = NewApp("demo", kDemoAbout);
  app->add_option("--seconds", options.seconds,
                  "stop after N seconds as if Ctrl-C was pressed (default: at Ctrl-C)")
      ->type_name("N")
      ->check(WholeNumber(1, demo::kMaxSeconds));
  app->add_flag("--keep", options.keep,
                "keep the work directory (config, state, logs) instead of removing it");
  app->add_option("--tables", tables, "source tables; must include incident, where the sink writes")
      ->type_name("t1,t2,...")
      ->default_str(Join(options.tables));
  app->add_option("--rows", options.rows, "generated rows per table at start")
      ->type_name("N")
      ->check(WholeNumber(0, demo::kMaxRows))
      ->capture_default_str();
  app->add_option("--rate", options.rate,
                  "rows per second the emulator's writer creates or updates")
      ->type_name("N")
      ->check(WholeNumber(1, demo::kMaxRate))
      ->capture_default_str();
  if (auto exit = ParseCommandLine(*app, args, out, err)) return exit;
  if (app->count("--tables") > 0) {
    auto parsed = demo::ParseTables(tables);
    if (!parsed.ok()) return UsageError(*app, parsed.status().message(), err);
    options.tables = std::move(parsed).value();
  }
  return std::nullopt;
}

int DemoMain(int argc, char** argv) {
  demo::Options options;
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (auto exit = ParseDemoArgs(args, options, std::cout, std::cerr)) return *exit;
  return demo::Main(options);
}

}  // namespace snowcar::cli
