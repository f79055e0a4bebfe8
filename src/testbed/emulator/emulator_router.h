// SPDX-License-Identifier: Apache-2.0
// The emulator's front door: control endpoint, faults, latency, auth, then the API routes,
// and a journal entry for every non-control request.
#pragma once

#include "testbed/emulator/emulator_http.h"
#include "testbed/emulator/server_context.h"

namespace snowcar::emulator {

EmulatorResponse Route(const ServerContext& ctx, EmulatorRequest& request);

}  // namespace snowcar::emulator
