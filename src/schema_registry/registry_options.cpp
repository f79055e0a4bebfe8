// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/registry_options.h"

#include "snowcar/common/redact.h"
#include "snowcar/config/config.h"

namespace snowcar::schema_registry {
namespace {

std::string FirstUrl(std::string_view list) {
  std::string_view first = list.substr(0, list.find(','));
  while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
  while (!first.empty() && (first.back() == ' ' || first.back() == '/')) first.remove_suffix(1);
  return std::string(first);
}

}  // namespace

Status RegistryOptions::Validate() const {
  if (url.empty()) return Status::Ok();
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return Status::InvalidArgument("schema.registry.url must start with http:// or https://");
  }
  if (basic_auth_credentials_source != "USER_INFO" && basic_auth_credentials_source != "URL" &&
      !basic_auth_credentials_source.empty()) {
    return Status::InvalidArgument(
        "schema.registry.basic.auth.credentials.source must be USER_INFO or URL");
  }
  if (basic_auth_credentials_source == "USER_INFO" && !basic_auth_user_info.empty() &&
      basic_auth_user_info.find(':') == std::string::npos) {
    return Status::InvalidArgument(
        "schema.registry.basic.auth.user.info must be user:password (no ':' found)");
  }
  if (retry.max_attempts < 1) {
    return Status::InvalidArgument("schema.registry.retry.max.attempts must be at least 1");
  }
  return Status::Ok();
}

Result<RegistryOptions> RegistryOptionsFromConfig(const config::Config& c) {
  RegistryOptions o;
  o.url = FirstUrl(c.GetString("schema.registry.url"));
  o.basic_auth_user_info = c.GetString("schema.registry.basic.auth.user.info");
  o.basic_auth_credentials_source = c.GetString("schema.registry.basic.auth.credentials.source");
  o.tls_ca_file = c.GetString("schema.registry.ssl.ca.location");
  o.tls_cert_file = c.GetString("schema.registry.ssl.certificate.location");
  o.tls_key_file = c.GetString("schema.registry.ssl.key.location");
  o.tls_key_password = c.GetString("schema.registry.ssl.key.password");
  o.tls_verify = c.GetString("schema.registry.ssl.endpoint.identification.algorithm") != "none";
  o.connect_timeout_ms = c.GetInt("schema.registry.connect.timeout.ms");
  o.request_timeout_ms = c.GetInt("schema.registry.request.timeout.ms");
  o.retry.max_attempts = static_cast<int>(c.GetInt("schema.registry.retry.max.attempts"));
  o.retry.max_elapsed_ms = c.GetInt("schema.registry.retry.max.elapsed.ms");
  o.retry.initial_backoff_ms = c.GetInt("schema.registry.retry.initial.backoff.ms");
  o.retry.max_backoff_ms = c.GetInt("schema.registry.retry.max.backoff.ms");
  SNOWCAR_ASSIGN_OR_RETURN(o.key_subject_strategy,
                           ParseSubjectStrategy(c.GetString("key.subject.name.strategy")));
  SNOWCAR_ASSIGN_OR_RETURN(o.value_subject_strategy,
                           ParseSubjectStrategy(c.GetString("value.subject.name.strategy")));
  // The password half of user:password is a secret on its own too (it may show alone).
  redact::RegisterSecret(o.basic_auth_user_info);
  if (auto colon = o.basic_auth_user_info.find(':'); colon != std::string::npos) {
    redact::RegisterSecret(o.basic_auth_user_info.substr(colon + 1));
  }
  redact::RegisterSecret(o.tls_key_password);
  SNOWCAR_RETURN_IF_ERROR(o.Validate());
  return o;
}

}  // namespace snowcar::schema_registry
