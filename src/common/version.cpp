// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/version.h"

#ifndef SNOWCAR_VERSION
#define SNOWCAR_VERSION "unknown"
#endif

namespace snowcar {

std::string_view SnowcarVersion() { return SNOWCAR_VERSION; }

std::string DefaultUserAgent() { return "snowcar/" + std::string(SnowcarVersion()); }

}  // namespace snowcar
