// SPDX-License-Identifier: Apache-2.0
// The control endpoint: /_emulator/... (no auth), the knobs of docs/testbed.md over HTTP.
#pragma once

#include "emulator/http_types.h"
#include "emulator/server_context.h"

namespace snowcar::emulator {

http::Response HandleControl(const ServerContext& ctx, const http::Request& request);

}  // namespace snowcar::emulator
