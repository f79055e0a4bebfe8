// SPDX-License-Identifier: Apache-2.0
// The OAuth 2 token endpoint's wire format (ServiceNow /oauth_token.do): form-encoded
// requests and JSON answers. Pure functions; the client's token source sends them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/servicenow/client_options.h"
#include "snowcar/servicenow/instance_http.h"

namespace snowcar::servicenow {

// The primary grant's body: client_credentials, or password with username and password.
std::string PrimaryGrantForm(const ClientOptions& options);
// A refresh_token grant's body.
std::string RefreshGrantForm(const ClientOptions& options, std::string_view refresh_token);

struct IssuedToken {
  std::string access_token;
  std::string refresh_token;  // may be empty (client_credentials usually has none)
  int64_t expires_in_seconds = 0;
};

// Reads a token answer. 400/401/403: PermissionDenied naming the endpoint's error code, never
// the request's fields (a fatal outcome for the calls waiting on it). Anything else that is
// not a 2xx with an access_token: Unavailable (worth retrying). Messages are masked.
Result<IssuedToken> ParseTokenAnswer(const InstanceResponse& response);

}  // namespace snowcar::servicenow
