// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/client.h"

#include <strings.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>

#include "client_exchange.h"
#include "socket_file.h"

namespace snowcar::api {

namespace net = boost::asio;
namespace beast = boost::beast;
using local = net::local::stream_protocol;

namespace {

// Turns a failed connect into a message that tells the operator what to check.
Status ExplainConnectFailure(const std::string& path, const beast::error_code& ec) {
  if (ec == beast::error::timeout) {
    return Status::DeadlineExceeded("connecting to the snowcar socket '" + path +
                                    "' timed out (the sidecar is overloaded or hung)");
  }
  const internal::SocketProbe probe = internal::ProbeSocketFile(path);
  switch (probe.state) {
    case internal::SocketFileState::kAbsent:
      return Status::NotFound("no snowcar socket at '" + path +
                              "': the file does not exist (is the sidecar running, and is "
                              "this its socket.path?)");
    case internal::SocketFileState::kStale:
      return Status::Unavailable("nothing listens on the snowcar socket '" + path +
                                 "': the file exists but no process accepts on it (a stale "
                                 "file from a stopped run?)");
    case internal::SocketFileState::kNotSocket:
      return Status::FailedPrecondition("'" + path + "' exists but is not a socket");
    case internal::SocketFileState::kNoAccess:
      return Status::PermissionDenied("no permission to connect to the snowcar socket '" + path +
                                      "' (" + probe.detail +
                                      "); run as the socket's owner or group");
    case internal::SocketFileState::kListening:
    case internal::SocketFileState::kUnknown:
      break;
  }
  return Status::Unavailable("cannot connect to the snowcar socket '" + path +
                             "': " + ec.message());
}

}  // namespace

std::string HttpResult::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() && strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
  }
  return {};
}

Client::Client(ClientOptions options) : options_(options) {}

Result<HttpResult> Client::Get(const std::string& socket_path, std::string_view target) const {
  return Send(socket_path, "GET", target, {});
}

Result<HttpResult> Client::Post(const std::string& socket_path, std::string_view target,
                                std::string_view body) const {
  return Send(socket_path, "POST", target, body);
}

Result<HttpResult> Client::Send(const std::string& socket_path, std::string_view method,
                                std::string_view target, std::string_view body) const {
  if (socket_path.empty()) return Status::InvalidArgument("socket path is empty");
  if (socket_path.size() > internal::MaxSocketPathLength()) {
    return Status::InvalidArgument("socket path '" + socket_path + "' is longer than " +
                                   std::to_string(internal::MaxSocketPathLength()) + " bytes");
  }
  net::io_context io;
  beast::basic_stream<local> stream(io);
  beast::error_code ec = net::error::would_block;

  stream.expires_after(options_.connect_timeout);
  stream.async_connect(local::endpoint(socket_path), [&](beast::error_code e) { ec = e; });
  io.run();
  if (ec) return ExplainConnectFailure(socket_path, ec);
  return internal::Exchange(io, internal::GenericStream(stream.release_socket()), options_,
                            "the snowcar socket '" + socket_path + "'", method, target, body);
}

Result<HttpResult> Client::SendTcp(const std::string& host, uint16_t port, std::string_view method,
                                   std::string_view target, std::string_view body) const {
  const std::string peer = "http://" +
                           (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                           std::to_string(port);
  net::io_context io;
  beast::error_code ec = net::error::would_block;
  net::ip::tcp::resolver::results_type endpoints;
  net::ip::tcp::resolver resolver(io);
  resolver.async_resolve(host, std::to_string(port),
                         [&](beast::error_code e, net::ip::tcp::resolver::results_type r) {
                           ec = e;
                           endpoints = std::move(r);
                         });
  io.run();
  if (ec) return Status::Unavailable("cannot resolve " + peer + ": " + ec.message());
  beast::tcp_stream stream(io);
  ec = net::error::would_block;
  stream.expires_after(options_.connect_timeout);
  stream.async_connect(endpoints,
                       [&](beast::error_code e, const net::ip::tcp::endpoint&) { ec = e; });
  io.restart();
  io.run();
  if (ec == beast::error::timeout) {
    return Status::DeadlineExceeded("connecting to " + peer + " timed out");
  }
  if (ec) return Status::Unavailable("cannot connect to " + peer + ": " + ec.message());
  return internal::Exchange(io, internal::GenericStream(stream.release_socket()), options_, peer,
                            method, target, body);
}

}  // namespace snowcar::api
