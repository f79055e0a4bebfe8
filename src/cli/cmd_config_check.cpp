// SPDX-License-Identifier: Apache-2.0
#include "cli/cmd_config_check.h"

#include <set>
#include <sstream>

#include "snowcar/runtime/sidecar.h"

namespace snowcar::cli {
namespace {

// The same refused Kafka property fails every client that would be created (the producers and
// each consumer): say it once.
std::string DropRepeatedLines(const std::string& text) {
  std::set<std::string> seen;
  std::istringstream lines(text);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    if (!seen.insert(line).second) continue;
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

}  // namespace

CheckedConfig LoadAndCheck(const config::LoadRequest& request) {
  config::LoadReport report = config::Config::LoadAll(request);
  CheckedConfig checked{std::move(report.problems), std::move(report.config)};
  if (!checked.config) return checked;
  if (Status s = runtime::CheckRunSettings(*checked.config); !s.ok()) {
    if (!checked.problems.empty()) checked.problems += '\n';
    checked.problems += s.message();
  }
  checked.problems = DropRepeatedLines(checked.problems);
  return checked;
}

}  // namespace snowcar::cli
