// SPDX-License-Identifier: Apache-2.0
// A small synchronous HTTP client for the state socket: the `snowcar state` CLI, the demo and
// tests. The same client speaks to an HTTP server on TCP (the admin listener, the emulator's
// control endpoint), so the product has one HTTP client for its own servers.
//
// Blocking is fine here: it runs on the CLI's main thread or a test thread, never on the
// runtime's pool.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::api {

struct HttpResult {
  int status = 0;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  std::string Header(std::string_view name) const;  // case-insensitive, "" when absent
};

struct ClientOptions {
  std::chrono::milliseconds connect_timeout{2000};
  // Deadline for writing the request and reading the whole answer.
  std::chrono::milliseconds request_timeout{10000};
};

class Client {
 public:
  explicit Client(ClientOptions options = {});

  // One request on a fresh connection. Any HTTP answer, 4xx and 5xx included, is a value;
  // an error means no answer: kNotFound when the socket file does not exist,
  // kUnavailable when nothing listens on it, kPermissionDenied, kFailedPrecondition when the
  // path is not a socket, kDeadlineExceeded on a timeout. Every message names the path.
  Result<HttpResult> Get(const std::string& socket_path, std::string_view target) const;
  Result<HttpResult> Post(const std::string& socket_path, std::string_view target,
                          std::string_view body = {}) const;
  Result<HttpResult> Send(const std::string& socket_path, std::string_view method,
                          std::string_view target, std::string_view body) const;
  // The same over TCP to `host`:`port` (a name or an address; IPv6 without brackets). Errors
  // name http://host:port: kUnavailable when it cannot be resolved or connected,
  // kDeadlineExceeded on a timeout.
  Result<HttpResult> SendTcp(const std::string& host, uint16_t port, std::string_view method,
                             std::string_view target, std::string_view body) const;

 private:
  ClientOptions options_;
};

}  // namespace snowcar::api
