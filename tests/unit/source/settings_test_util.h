// SPDX-License-Identifier: Apache-2.0
// A valid minimal configuration with the source on, to which each test adds or removes keys.
#pragma once

#include <map>
#include <string>

#include "snowcar/common/status.h"
#include "snowcar/config/config.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source::testing {

inline std::map<std::string, std::string> BaseKeys() {
  return {{"snow.url", "https://Acme.service-now.com:8443/proxy"},
          {"snow.auth.username", "integration"},
          {"snow.auth.password", "pw-not-shown"},
          {"sink.enabled", "false"},
          {"snow.tables", "inc"},
          {"snow.table.inc.name", "incident"},
          {"snow.table.inc.topic", "sn.incident"}};
}

// Loads `keys` through the config layer, then SourceSettings::FromConfig.
inline Result<SourceSettings> Settings(const std::map<std::string, std::string>& keys) {
  SNOWCAR_ASSIGN_OR_RETURN(const config::Config config, config::Config::FromMap(keys));
  return SourceSettings::FromConfig(config);
}

}  // namespace snowcar::source::testing
