// SPDX-License-Identifier: Apache-2.0
// Command-line options of `snowcar demo`.
#pragma once

#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::demo {

extern const char kUsage[];

struct Options {
  int seconds = 0;  // 0: until Ctrl-C
  bool keep = false;
  std::vector<std::string> tables{"incident", "change_request", "sys_user"};
  int rows = 1000;
  int rate = 20;
  bool help = false;
};

// argv[0] is "demo". Every refusal names the option and what is allowed.
Result<Options> ParseOptions(int argc, char** argv);

}  // namespace snowcar::demo
