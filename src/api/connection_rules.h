// SPDX-License-Identifier: Apache-2.0
// The rules of one connection of the socket and admin servers (http_server_core.h) beyond
// its limits (snowcar/api/connection_limits.h): how a closing connection lingers, which path
// a target routes to, what was decided on admission, and the answer a read failure gets.
#pragma once

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/api/api_http.h"
#include "snowcar/api/connection_limits.h"

namespace snowcar::api::internal {

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
  std::optional<ApiResponse> refusal;
};

inline ApiResponse ErrorForReadFailure(const boost::beast::error_code& ec,
                                       const ConnectionLimits& limits) {
  namespace http = boost::beast::http;
  if (ec == http::error::body_limit) {
    return ApiResponse::Error(
        413, "request body exceeds " + std::to_string(limits.body_limit) + " bytes", "");
  }
  if (ec == http::error::header_limit) {
    return ApiResponse::Error(
        431, "request line and headers exceed " + std::to_string(limits.header_limit) + " bytes",
        "");
  }
  return ApiResponse::Error(400, "malformed HTTP request: " + ec.message(), "");
}

// Which kind of slot a connection holds, decided when it is accepted.
enum class SlotKind {
  kRegular,  // any request, keep-alive
  kSpare,    // beyond max_connections: one request, probe paths only (ConnectionLimits)
};

}  // namespace snowcar::api::internal
