// SPDX-License-Identifier: Apache-2.0
// POST /oauth_token.do: password, client_credentials and refresh_token grants, form body only.
#pragma once

#include "emulator/http_types.h"
#include "emulator/server_context.h"

namespace snowcar::emulator {

http::Response HandleOAuthToken(const ServerContext& ctx, const http::Request& request);

}  // namespace snowcar::emulator
