// SPDX-License-Identifier: Apache-2.0
// POST /oauth_token.do: password, client_credentials and refresh_token grants, form body only.
#pragma once

#include "testbed/emulator/emulator_http.h"
#include "testbed/emulator/server_context.h"

namespace snowcar::emulator {

EmulatorResponse HandleOAuthToken(const ServerContext& ctx, const EmulatorRequest& request);

}  // namespace snowcar::emulator
