// SPDX-License-Identifier: Apache-2.0
#include "demo/options.h"

#include <algorithm>
#include <cctype>

#include "demo/config.h"

namespace snowcar::demo {

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

}  // namespace snowcar::demo
