// SPDX-License-Identifier: Apache-2.0
// The second loading pass: rules that span several keys (RocksDB's ValidateOptions idea).
// Runs after every value passed its own type check and defaults were filled in.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace snowcar::config {

struct CrossCheckInput {
  // Every declared key with its effective value ("" when unset), plus given family members.
  const std::map<std::string, std::string, std::less<>>& values;
  // Keys whose given value the first pass rejected (and already reported).
  const std::set<std::string, std::less<>>& rejected;
};

// Appends one line per broken rule to `errors`, naming the keys involved, anything worth a
// start-up log line to `notes`, and to `warnings` combinations that work but risk something
// (`config check` prints them, `run` logs them at warn level).
void RunCrossChecks(const CrossCheckInput& in, std::vector<std::string>& errors,
                    std::vector<std::string>& notes, std::vector<std::string>& warnings);

}  // namespace snowcar::config
