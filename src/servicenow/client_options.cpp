// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/client_options.h"

#include "snowcar/common/redact.h"
#include "snowcar/config/config.h"

namespace snowcar::servicenow {
namespace {

std::string DropTrailingSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

}  // namespace

std::string ClientOptions::EffectiveTokenUrl() const {
  std::string url = token_url;
  constexpr std::string_view kPlaceholder = "{snow.url}";
  if (auto pos = url.find(kPlaceholder); pos != std::string::npos) {
    url.replace(pos, kPlaceholder.size(), DropTrailingSlash(base_url));
  }
  if (url.empty()) url = DropTrailingSlash(base_url) + "/oauth_token.do";
  return url;
}

Status ClientOptions::Validate() const {
  if (base_url.empty()) return Status::InvalidArgument("snow.url is required");
  if (!base_url.starts_with("http://") && !base_url.starts_with("https://")) {
    return Status::InvalidArgument("snow.url must start with http:// or https://");
  }
  if (auth_type == AuthType::kBasic && username.empty()) {
    return Status::InvalidArgument("snow.auth.username is required with snow.auth.type=basic");
  }
  if (auth_type == AuthType::kOAuth2) {
    if (client_id.empty()) {
      return Status::InvalidArgument("snow.oauth.client.id is required with snow.auth.type=oauth2");
    }
    if (grant_type == GrantType::kPassword && username.empty()) {
      return Status::InvalidArgument(
          "snow.auth.username is required with snow.oauth.grant.type=password");
    }
  }
  if (max_concurrent_requests < 1) {
    return Status::InvalidArgument("snow.http.max.concurrent.requests must be at least 1");
  }
  if (retry.max_attempts < 1) {
    return Status::InvalidArgument("snow.retry.max.attempts must be at least 1");
  }
  return Status::Ok();
}

Result<ClientOptions> ClientOptionsFromConfig(const config::Config& c) {
  ClientOptions o;
  o.base_url = DropTrailingSlash(c.GetString("snow.url"));
  o.auth_type = c.GetString("snow.auth.type") == "oauth2" ? AuthType::kOAuth2 : AuthType::kBasic;
  o.username = c.GetString("snow.auth.username");
  o.password = c.GetString("snow.auth.password");
  o.grant_type = c.GetString("snow.oauth.grant.type") == "password" ? GrantType::kPassword
                                                                    : GrantType::kClientCredentials;
  o.token_url = c.GetString("snow.oauth.token.url");
  o.client_id = c.GetString("snow.oauth.client.id");
  o.client_secret = c.GetString("snow.oauth.client.secret");
  o.scope = c.GetString("snow.oauth.scope");
  for (const char* key : {"snow.auth.username", "snow.auth.password", "snow.oauth.client.id",
                          "snow.oauth.client.secret"}) {
    if (const std::string& file = c.ValueFile(key); !file.empty()) o.credential_files[key] = file;
  }
  o.connect_timeout_ms = c.GetInt("snow.http.connect.timeout.ms");
  o.request_timeout_ms = c.GetInt("snow.http.request.timeout.ms");
  o.proxy_url = c.GetString("snow.http.proxy.url");
  o.proxy_username = c.GetString("snow.http.proxy.username");
  o.proxy_password = c.GetString("snow.http.proxy.password");
  o.max_concurrent_requests = static_cast<int>(c.GetInt("snow.http.max.concurrent.requests"));
  o.max_response_bytes = c.GetInt("snow.http.max.response.bytes");
  o.user_agent = c.GetString("snow.http.user.agent");
  o.adaptive_throttling = c.GetBool("snow.http.adaptive.throttling");
  o.retry.max_attempts = static_cast<int>(c.GetInt("snow.retry.max.attempts"));
  o.retry.max_elapsed_ms = c.GetInt("snow.retry.max.elapsed.ms");
  o.retry.initial_backoff_ms = c.GetInt("snow.retry.initial.backoff.ms");
  o.retry.max_backoff_ms = c.GetInt("snow.retry.max.backoff.ms");
  o.tls_ca_file = c.GetString("snow.tls.ca.file");
  o.tls_cert_file = c.GetString("snow.tls.cert.file");
  o.tls_key_file = c.GetString("snow.tls.key.file");
  o.tls_key_password = c.GetString("snow.tls.key.password");
  o.tls_verify = c.GetBool("snow.tls.verify");
  for (const std::string* secret :
       {&o.password, &o.client_secret, &o.proxy_password, &o.tls_key_password}) {
    if (!secret->empty()) redact::RegisterSecret(*secret);
  }
  SNOWCAR_RETURN_IF_ERROR(o.Validate());
  return o;
}

}  // namespace snowcar::servicenow
