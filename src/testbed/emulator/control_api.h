// SPDX-License-Identifier: Apache-2.0
// The control endpoint: /_emulator/... (no auth), the knobs of docs/testbed.md over HTTP.
#pragma once

#include "testbed/emulator/emulator_http.h"
#include "testbed/emulator/server_context.h"

namespace snowcar::emulator {

EmulatorResponse HandleControl(const ServerContext& ctx, const EmulatorRequest& request);

}  // namespace snowcar::emulator
