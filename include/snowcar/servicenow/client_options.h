// SPDX-License-Identifier: Apache-2.0
// Everything the ServiceNow client is told by configuration, as a value.
//
// FromConfig reads the `snow.*` core keys (names in src/config/option_table.cpp); tests build
// the struct directly. Secret members are registered with redact:: by FromConfig and by the
// client, so they never show in logs or errors.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "snowcar/common/status.h"
#include "snowcar/servicenow/retry_policy.h"

namespace snowcar::config {
class Config;
}

namespace snowcar::servicenow {

enum class AuthType { kBasic, kOAuth2 };
enum class GrantType { kClientCredentials, kPassword };

struct ClientOptions {
  std::string base_url;  // snow.url, no trailing '/'
  AuthType auth_type = AuthType::kBasic;
  std::string username;  // snow.auth.username
  std::string password;  // snow.auth.password (secret)

  GrantType grant_type = GrantType::kClientCredentials;  // snow.oauth.grant.type
  std::string token_url;                                 // empty: {base_url}/oauth_token.do
  std::string client_id;                                 // snow.oauth.client.id
  std::string client_secret;                             // snow.oauth.client.secret (secret)
  std::string scope;                                     // snow.oauth.scope
  // The credential keys above whose value was read from a `<key>.file` (a mounted Secret):
  // key -> file. The client reads them again when the instance refuses the credentials
  // (credential_files.h), so a Secret corrected in place needs no restart.
  std::map<std::string, std::string> credential_files;

  int64_t connect_timeout_ms = 10000;     // snow.http.connect.timeout.ms
  int64_t request_timeout_ms = 60000;     // snow.http.request.timeout.ms
  std::string proxy_url;                  // snow.http.proxy.url
  std::string proxy_username;             // snow.http.proxy.username
  std::string proxy_password;             // snow.http.proxy.password (secret)
  int max_concurrent_requests = 8;        // snow.http.max.concurrent.requests
  int64_t max_response_bytes = 64 << 20;  // snow.http.max.response.bytes
  std::string user_agent;                 // snow.http.user.agent; empty: DefaultUserAgent()
  bool adaptive_throttling = true;        // snow.http.adaptive.throttling

  RetryPolicy retry;  // snow.retry.*

  std::string tls_ca_file;       // snow.tls.ca.file
  std::string tls_cert_file;     // snow.tls.cert.file (.p12/.pfx read as PKCS#12)
  std::string tls_key_file;      // snow.tls.key.file
  std::string tls_key_password;  // snow.tls.key.password (secret)
  bool tls_verify = true;        // snow.tls.verify

  // The token endpoint to use: token_url, or {base_url}/oauth_token.do.
  std::string EffectiveTokenUrl() const;
  // InvalidArgument naming the key when something needed for the chosen auth is missing.
  Status Validate() const;
  bool operator==(const ClientOptions&) const = default;
};

Result<ClientOptions> ClientOptionsFromConfig(const config::Config& config);

}  // namespace snowcar::servicenow
