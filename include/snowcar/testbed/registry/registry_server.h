// SPDX-License-Identifier: Apache-2.0
// A Schema Registry test double: the part of Confluent Schema Registry's REST API that
// serializers, converters and snowcar's client use, kept in memory, on loopback HTTP.
//
// It follows the registry's answers for subjects, versions, ids and compatibility (error codes
// 40401, 40402, 40403, 40408, 409, 42201, 42203), checks Avro schemas with avro-c and applies
// the compatibility levels (BACKWARD by default) with the rules of the double's compatibility.h.
// It is not a registry: no persistence, no schema references, no deletes but a whole subject,
// no contexts or modes, no Protobuf. docs/testbed.md lists what it does and does not do.
//
// Test knob (not part of the registry's API): POST /_registry/fail?count=N&status=S makes the
// next N requests (-1: all of them) answer S (default 503), optionally with error_code=,
// message= or a verbatim body=, after delay_ms=; docs/testbed.md lists the parameters.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "snowcar/common/status.h"

namespace snowcar::registry {

struct RegistryServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port
  int threads = 2;
  // When `user` is set, every request must carry HTTP basic auth with these credentials
  // (401 otherwise), as a registry behind basic auth does.
  std::string user;
  std::string password;
};

class RegistryServer {
 public:
  explicit RegistryServer(RegistryServerOptions options);
  ~RegistryServer();
  RegistryServer(const RegistryServer&) = delete;
  RegistryServer& operator=(const RegistryServer&) = delete;

  Status Start();
  void Stop();  // idempotent
  uint16_t port() const;
  std::string base_url() const;  // "http://127.0.0.1:PORT"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace snowcar::registry
