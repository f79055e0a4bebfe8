// SPDX-License-Identifier: Apache-2.0
// A configuration value as given, before any check (shared by the loader's steps).
#pragma once

#include <string>

namespace snowcar::config {

struct RawValue {
  std::string value;
  std::string origin;  // "app.properties:12", "environment SNOWCAR_THREADS", "--set"
  // The variable's name when the value came from the environment; "" otherwise.
  std::string env_name = {};
};

}  // namespace snowcar::config
