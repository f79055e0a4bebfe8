// SPDX-License-Identifier: Apache-2.0
// The configuration check shared by `snowcar config check` and `snowcar run`, so the two can
// never disagree about what is valid.
#pragma once

#include <optional>
#include <string>

#include "snowcar/config/config.h"

namespace snowcar::cli {

struct CheckedConfig {
  // Every problem, one a line, a line repeated by several checks said once; "" when valid.
  std::string problems;
  // The configuration built from what passed; absent only when the file could not be read.
  std::optional<config::Config> config;
};

// Loads `request` and makes every check `run` makes before it starts, in one pass: the values,
// then, on the valid part even when some values were refused, each enabled direction's
// settings, admin.listen and the Kafka clients' properties.
CheckedConfig LoadAndCheck(const config::LoadRequest& request);

}  // namespace snowcar::cli
