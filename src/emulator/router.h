// SPDX-License-Identifier: Apache-2.0
// The emulator's front door: control endpoint, faults, latency, auth, then the API routes,
// and a journal entry for every non-control request.
#pragma once

#include "emulator/http_types.h"
#include "emulator/server_context.h"

namespace snowcar::emulator {

http::Response Route(const ServerContext& ctx, http::Request& request);

}  // namespace snowcar::emulator
