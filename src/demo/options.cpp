// SPDX-License-Identifier: Apache-2.0
#include "demo/options.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>

#include "demo/config.h"

namespace snowcar::demo {

const char kUsage[] =
    "usage: snowcar demo [--seconds N] [--keep] [--tables t1,t2,...] [--rows N] [--rate N]\n"
    "\n"
    "Runs the embedded default end to end: the ServiceNow emulator with a live writer, the\n"
    "embedded Kafka broker and one sidecar with both directions, as child processes in one\n"
    "process group. Prints progress every second, shows `snowcar state` answering, restarts\n"
    "the sidecar and counts what the restart emitted twice. Stops on Ctrl-C.\n"
    "\n"
    "  --seconds N  stop after N seconds as if Ctrl-C was pressed (default: run until Ctrl-C)\n"
    "  --keep       keep the work directory (config, state, logs) instead of removing it\n"
    "  --tables L   source tables (default incident,change_request,sys_user; must include\n"
    "               incident, which the sink's commands write to)\n"
    "  --rows N     generated rows per table at start (default 1000)\n"
    "  --rate N     rows per second the emulator's writer creates or updates (default 20)\n";

namespace {

Result<int> ParseInt(std::string_view flag, const std::string& value, int min, int max) {
  char* end = nullptr;
  const long n = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n < min || n > max) {
    return Status::InvalidArgument(std::string(flag) + ": '" + value +
                                   "' is not a whole number in [" + std::to_string(min) + ", " +
                                   std::to_string(max) + "]");
  }
  return static_cast<int>(n);
}

Result<std::vector<std::string>> ParseTables(const std::string& value) {
  std::vector<std::string> tables;
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string::npos) end = value.size();
    const std::string name = value.substr(start, end - start);
    start = end + 1;
    if (name.empty()) continue;
    const bool valid = std::islower(static_cast<unsigned char>(name[0])) &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return std::islower(static_cast<unsigned char>(c)) ||
                                std::isdigit(static_cast<unsigned char>(c)) || c == '_';
                       });
    if (!valid) {
      return Status::InvalidArgument("--tables: '" + name +
                                     "' is not a table name ([a-z][a-z0-9_]*)");
    }
    if (std::find(tables.begin(), tables.end(), name) == tables.end()) tables.push_back(name);
  }
  if (std::find(tables.begin(), tables.end(), kCommandTable) == tables.end()) {
    return Status::InvalidArgument(
        "--tables must include incident: the sink's commands create and update incidents");
  }
  return tables;
}

}  // namespace

Result<Options> ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      o.help = true;
      return o;
    }
    if (flag == "--keep") {
      o.keep = true;
      continue;
    }
    if (flag != "--seconds" && flag != "--tables" && flag != "--rows" && flag != "--rate") {
      return Status::InvalidArgument("unknown argument '" + std::string(flag) + "'");
    }
    if (i + 1 >= argc) return Status::InvalidArgument(std::string(flag) + " needs a value");
    const std::string value = argv[++i];
    if (flag == "--seconds") {
      SNOWCAR_ASSIGN_OR_RETURN(o.seconds, ParseInt(flag, value, 1, 24 * 3600));
    } else if (flag == "--rows") {
      SNOWCAR_ASSIGN_OR_RETURN(o.rows, ParseInt(flag, value, 0, 1'000'000));
    } else if (flag == "--rate") {
      SNOWCAR_ASSIGN_OR_RETURN(o.rate, ParseInt(flag, value, 1, 10'000));
    } else {
      SNOWCAR_ASSIGN_OR_RETURN(o.tables, ParseTables(value));
    }
  }
  return o;
}

}  // namespace snowcar::demo
