// SPDX-License-Identifier: Apache-2.0
// What the socket and admin servers (http_server_core.h) hold every connection to: sizes,
// timeouts, the connection cap and its spare slots for probes, and the answers a read
// failure or a refused connection gets.
#pragma once

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/api/http.h"

namespace snowcar::api::internal {

struct HttpLimits {
  size_t header_limit = size_t{8} * 1024;
  size_t body_limit = size_t{64} * 1024;
  // From the moment the server waits for a request (a new connection, or the next request on
  // a kept-alive one) until its request line and headers are in; on expiry the connection is
  // closed. Short on purpose: every client of this API sends a request in one go, and a
  // client that trickles bytes or idles must not hold a connection slot for long.
  std::chrono::milliseconds header_timeout{3000};
  // For the body of a request and for writing one answer.
  std::chrono::milliseconds read_timeout{10000};
  size_t max_connections = 64;
  // Connections accepted while max_connections are open. Each may send one request within
  // spare_header_timeout: a GET of one of the probe_paths is answered as usual, anything
  // else (or nothing in time) gets the 503. So liveness and readiness probes are answered
  // while slow or idle clients hold every regular slot. When this many already wait, the
  // oldest is answered 503 at once to make room: a newcomer always gets its chance.
  size_t spare_connections = 64;
  std::chrono::milliseconds spare_header_timeout{1000};
  std::vector<std::string> probe_paths = {"/v1/health", "/v1/ready"};
};

// How long a connection the server closes after an answer still reads (and discards) what
// the client sends. Closing a socket with unread input makes the kernel reset the connection,
// and a reset can destroy the answer before the client reads it; a client that sent a whole
// request reads the answer and closes long before this runs out.
inline constexpr std::chrono::milliseconds kLingerTimeout{1000};

// The path of a request target without its query and one trailing slash, as the router
// matches it ("/v1/health/?x=1" -> "/v1/health").
inline std::string_view TargetPath(std::string_view target) {
  target = target.substr(0, target.find('?'));
  if (target.size() > 1 && target.back() == '/') target.remove_suffix(1);
  return target;
}

// What the server decided about one accepted connection before reading from it.
struct Admission {
  std::string peer;  // who is asking, for handlers' audit logs ("pid=1 uid=0 gid=0")
  // When set, every request on the connection gets this answer and the connection closes.
  // The request is read first, so the client sees a proper HTTP answer rather than a reset.
  std::optional<Response> refusal;
};

inline Response ErrorForReadFailure(const boost::beast::error_code& ec, const HttpLimits& limits) {
  namespace http = boost::beast::http;
  if (ec == http::error::body_limit) {
    return Response::Error(
        413, "request body exceeds " + std::to_string(limits.body_limit) + " bytes", "");
  }
  if (ec == http::error::header_limit) {
    return Response::Error(
        431, "request line and headers exceed " + std::to_string(limits.header_limit) + " bytes",
        "");
  }
  return Response::Error(400, "malformed HTTP request: " + ec.message(), "");
}

// Which kind of slot a connection holds, decided when it is accepted.
enum class SlotKind {
  kRegular,  // any request, keep-alive
  kSpare,    // beyond max_connections: one request, probe paths only (HttpLimits)
};

}  // namespace snowcar::api::internal
