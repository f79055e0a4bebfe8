// SPDX-License-Identifier: Apache-2.0
// A configuration value as given, before any check (shared by the loader's steps).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace snowcar::config {

struct RawValue {
  std::string value;
  std::string origin;  // "app.properties:12", "environment SNOWCAR_THREADS", "--set"
  // The variable's name when the value came from the environment; "" otherwise.
  std::string env_name = {};
};

// For the rewrites of another product's keys: true, with the refusal added to `errors`, when
// `merged` gives `target` itself besides the key `from` (given as `raw`) that would set it.
inline bool GivenBothWays(const std::map<std::string, RawValue>& merged, const std::string& target,
                          const std::string& from, const RawValue& raw,
                          std::vector<std::string>& errors) {
  const auto it = merged.find(target);
  if (it == merged.end()) return false;
  errors.push_back("both '" + from + "' [" + raw.origin + "] and '" + target + "' [" +
                   it->second.origin + "] are given; '" + from + "' sets '" + target +
                   "', give only one");
  return true;
}

}  // namespace snowcar::config
