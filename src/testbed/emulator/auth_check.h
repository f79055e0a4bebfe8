// SPDX-License-Identifier: Apache-2.0
// Who is calling: Basic credentials or an OAuth bearer token, checked on every Table API
// and Batch API request.
#pragma once

#include <string>

#include "testbed/emulator/emulator_http.h"
#include "testbed/emulator/server_context.h"

namespace snowcar::emulator {

struct AuthResult {
  bool ok = false;
  std::string kind = "none";  // "none", "basic", "bearer", "other": what was presented
  std::string user;           // set when ok
};

AuthResult Authenticate(const ServerContext& ctx, const EmulatorRequest& request);

}  // namespace snowcar::emulator
