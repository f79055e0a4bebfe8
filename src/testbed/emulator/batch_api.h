// SPDX-License-Identifier: Apache-2.0
// POST /api/now/v1/batch: several Table API requests in one call, run one after another.
#pragma once

#include <string>

#include "testbed/emulator/emulator_http.h"
#include "testbed/emulator/server_context.h"

namespace snowcar::emulator {

EmulatorResponse HandleBatch(const ServerContext& ctx, const EmulatorRequest& request,
                             const std::string& user);

}  // namespace snowcar::emulator
