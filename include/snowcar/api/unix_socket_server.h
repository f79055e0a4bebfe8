// SPDX-License-Identifier: Apache-2.0
// The state socket: HTTP/1.1 over a Unix domain socket, answered by an ApiRouter.
//
// The server owns no threads. It runs on the caller's io_context (the runtime's one pool);
// the acceptor and every connection have their own strand, so slow clients never block each
// other and a connection's handlers never run concurrently with themselves.
//
// Only local processes with file access can connect: the socket file is mode 0660 and its
// directory, when the server creates it, 0750. An optional allow-list narrows that further to
// given uids, checked with the kernel's peer credentials (SO_PEERCRED). The optional TCP
// listener for probes and scraping is a separate server (tcp_server.h) with its own routes.
//
// Nothing a client sends can crash the process: malformed requests get a 400 JSON answer
// when one is still possible and the connection is closed; oversized ones 413/431; a client
// that goes silent is dropped after header_timeout.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "snowcar/api/api_router.h"
#include "snowcar/api/connection_limits.h"
#include "snowcar/common/status.h"

namespace snowcar::api {

inline constexpr const char* kDefaultSocketPath = "/var/run/snowcar/snowcar.sock";

struct ServerOptions {
  std::string path = kDefaultSocketPath;  // socket.path
  ConnectionLimits limits = {};           // the defaults in connection_limits.h
  // socket.allowed.uids: when not empty, only processes running as one of these uids are
  // served; any other peer gets 403 on every request (and a warn log line naming its uid).
  // Empty: everyone who can open the 0660 socket file.
  std::vector<uint32_t> allowed_uids = {};
};

class UnixSocketServer {
 public:
  // `router` is shared because open connections may still be answering when the server
  // object goes away; the state the handlers reference must outlive the io_context's run.
  UnixSocketServer(boost::asio::io_context& io, ServerOptions options,
                   std::shared_ptr<const ApiRouter> router);
  ~UnixSocketServer();  // Stop()

  UnixSocketServer(const UnixSocketServer&) = delete;
  UnixSocketServer& operator=(const UnixSocketServer&) = delete;

  // Binds and starts accepting. Creates the parent directory (0750) when missing. A socket
  // file left by a crashed run (nothing accepts on it) is replaced; fails with
  // kAlreadyExists naming the path when another process listens there, and with
  // kFailedPrecondition when the path is something other than a socket (never deleted).
  // Call once, from any thread.
  Status Start();

  // Closes the acceptor and every open connection and unlinks the socket file (only when it
  // is still the file this server bound). Idempotent; does not wait for the io_context.
  void Stop();

  const std::string& path() const;
  // Connections currently open (tests wait on this with a deadline).
  size_t open_connections() const;

  struct State;  // shared with the connections; defined in the .cpp

 private:
  std::shared_ptr<State> state_;
};

}  // namespace snowcar::api
