// SPDX-License-Identifier: Apache-2.0
// Everything the Schema Registry client is told by configuration, as a value.
//
// FromConfig reads the `schema.registry.*` keys (src/config/option_table_registry.cpp), which
// the Kafka Connect converter keys (`value.converter.schema.registry.url`, ...) map onto.
// Tests build the struct directly. The password part of `basic_auth_user_info` is registered
// with redact:: so it never shows in logs or errors.
#pragma once

#include <cstdint>
#include <string>

#include "snowcar/common/status.h"
#include "snowcar/schema_registry/subject.h"
#include "snowcar/servicenow/retry_policy.h"

namespace snowcar::config {
class Config;
}

namespace snowcar::schema_registry {

struct RegistryOptions {
  // schema.registry.url: one base URL, no trailing '/' (Confluent accepts a comma-separated
  // list; the first entry is used and the others are tried when it cannot be reached).
  std::string url;
  // schema.registry.basic.auth.user.info: "user:password" (secret), used when
  // basic.auth.credentials.source is USER_INFO; URL takes the user info from `url` instead.
  std::string basic_auth_user_info;
  std::string basic_auth_credentials_source = "USER_INFO";  // USER_INFO | URL | "" (none)

  std::string tls_ca_file;       // schema.registry.ssl.ca.location
  std::string tls_cert_file;     // schema.registry.ssl.certificate.location
  std::string tls_key_file;      // schema.registry.ssl.key.location
  std::string tls_key_password;  // schema.registry.ssl.key.password (secret)
  bool tls_verify = true;        // schema.registry.ssl.endpoint.identification.algorithm != none

  int64_t connect_timeout_ms = 10000;    // schema.registry.connect.timeout.ms
  int64_t request_timeout_ms = 30000;    // schema.registry.request.timeout.ms
  int64_t max_response_bytes = 8 << 20;  // answers are schemas: small
  // schema.registry.retry.*: the shape of snow.retry.*, with shorter waits (a registry answers
  // in milliseconds or is down).
  servicenow::RetryPolicy retry{.max_attempts = 5,
                                .max_elapsed_ms = 60000,
                                .initial_backoff_ms = 200,
                                .max_backoff_ms = 10000};

  SubjectStrategy key_subject_strategy = SubjectStrategy::kTopicName;
  SubjectStrategy value_subject_strategy = SubjectStrategy::kTopicName;

  // Whether a registry is configured at all.
  bool enabled() const { return !url.empty(); }
  // InvalidArgument naming the key when a value cannot work (bad URL scheme, user info
  // without a ':', unknown credentials source).
  Status Validate() const;
  bool operator==(const RegistryOptions&) const = default;
};

// Reads the schema.registry.* keys; an empty url when none is configured.
Result<RegistryOptions> RegistryOptionsFromConfig(const config::Config& config);

}  // namespace snowcar::schema_registry
