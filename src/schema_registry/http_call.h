// SPDX-License-Identifier: Apache-2.0
// One synchronous HTTP exchange with the registry over a libcurl easy handle: URL, method,
// body, basic auth, TLS and timeouts from RegistryOptions. No retries here (client.cpp).
//
// Synchronous on purpose: the client answers nearly every call from its cache, so a call that
// reaches the registry is rare (a new schema, a new id) and not worth a multi handle.
#pragma once

#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/schema_registry/registry_options.h"

namespace snowcar::schema_registry {

struct HttpAnswer {
  int status = 0;    // HTTP status; 0 when the exchange failed before an answer
  std::string body;  // the answer's body
  // When status is 0: why (libcurl's words), and whether it was a timeout.
  std::string transport_error;
  bool timed_out = false;
};

// `path` starts with '/' and is already escaped. `body` non-empty: POST/PUT with
// Content-Type application/vnd.schemaregistry.v1+json.
HttpAnswer PerformHttp(const RegistryOptions& options, std::string_view method,
                       std::string_view path, std::string_view body);

// `url` with any `user:password@` part removed, for messages.
std::string DisplayUrl(std::string_view url);

// Percent-escapes one path segment (a subject name may hold '/', ':', spaces).
std::string EscapePathSegment(std::string_view segment);

}  // namespace snowcar::schema_registry
