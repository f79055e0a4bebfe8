// SPDX-License-Identifier: Apache-2.0
// What the socket API's servers (the Unix socket, the admin TCP listener) hold every
// connection to. One struct for both: each server's options say only where its defaults
// differ (tcp_server.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace snowcar::api {

struct ConnectionLimits {
  size_t header_limit = size_t{8} * 1024;  // request line plus headers; 431 beyond
  size_t body_limit = size_t{64} * 1024;   // 413 beyond; no endpoint takes a large body
  // From the moment the server waits for a request (a new connection, or the next request on
  // a kept-alive one) until its request line and headers are in; on expiry the connection is
  // closed, so it is also the keep-alive idle time. Short on purpose and not configurable:
  // every client of this API sends a request in one go, and a client that trickles bytes or
  // idles must not hold a connection slot for long.
  std::chrono::milliseconds header_timeout{3000};
  // For the body of a request and for writing one answer.
  std::chrono::milliseconds read_timeout{10000};
  size_t max_connections = 64;  // regular connections: any request, keep-alive
  // Connections accepted while max_connections are open. Each may send one request within
  // spare_header_timeout: a GET of one of the probe_paths is answered as usual, anything
  // else (or nothing in time) gets a 503 JSON answer and the connection closes. So liveness
  // and readiness probes are answered while slow or idle clients hold every regular slot.
  // When this many already wait, the oldest is answered 503 at once to make room: a
  // newcomer always gets its chance.
  size_t spare_connections = 64;
  std::chrono::milliseconds spare_header_timeout{1000};
  std::vector<std::string> probe_paths = {"/v1/health", "/v1/ready"};
};

}  // namespace snowcar::api
