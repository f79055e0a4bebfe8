// SPDX-License-Identifier: Apache-2.0
// Options of `snowcar demo`; the command line that sets them is parsed in cli/cmd_demo.cpp.
#pragma once

#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::demo {

struct Options {
  int seconds = 0;  // 0: until Ctrl-C
  bool keep = false;
  std::vector<std::string> tables{"incident", "change_request", "sys_user"};
  int rows = 1000;
  int rate = 20;
};

// The largest values the command line accepts (`snowcar demo`, cli/cmd_demo.cpp).
inline constexpr int kMaxSeconds = 24 * 3600;
inline constexpr int kMaxRows = 1'000'000;
inline constexpr int kMaxRate = 10'000;

// --tables: comma-separated table names, each [a-z][a-z0-9_]*, duplicates dropped; the list
// must include the sink's table (kCommandTable). The refusal names the option and the name.
Result<std::vector<std::string>> ParseTables(const std::string& value);

}  // namespace snowcar::demo
