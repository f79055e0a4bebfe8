// SPDX-License-Identifier: Apache-2.0
// The optional TCP listener (`admin.listen=HOST:PORT`) for Prometheus scraping and
// Kubernetes HTTP probes.
//
// It serves whatever ApiRouter it is given; the sidecar gives it a reduced one (GET /metrics,
// /v1/health and /v1/ready only, see SubsetRouter), so state queries and resets stay on the
// Unix socket where file permissions and the uid allow-list protect them. Same connection
// handling as the Unix socket server (limits, timeouts, connection cap), on the caller's
// io_context; no threads of its own.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "snowcar/api/api_router.h"
#include "snowcar/api/connection_limits.h"
#include "snowcar/common/status.h"

namespace snowcar::api {

// "127.0.0.1:9464", "[::1]:9464", "localhost:0", "0.0.0.0:9464".
struct ListenAddress {
  std::string host;  // without IPv6 brackets
  uint16_t port = 0;

  // True for 127.0.0.0/8, ::1, ::ffff:127.x.x.x and the name "localhost": addresses only this
  // machine (this pod) can reach. Any other host, wildcard addresses included, is remote.
  bool IsLoopback() const;
  std::string ToString() const;  // host:port, IPv6 in brackets
};

// kInvalidArgument naming the text and what is wrong.
Result<ListenAddress> ParseListenAddress(std::string_view text);

struct TcpServerOptions {
  ListenAddress address{"127.0.0.1", 0};
  // As the socket's (connection_limits.h), smaller: the admin routes take no body, and a
  // scraper and two probes need a handful of connections.
  ConnectionLimits limits{
      .body_limit = size_t{4} * 1024, .max_connections = 16, .spare_connections = 16};
};

class TcpServer {
 public:
  TcpServer(boost::asio::io_context& io, TcpServerOptions options,
            std::shared_ptr<const ApiRouter> router);
  ~TcpServer();  // Stop()

  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;

  // Resolves the host (blocking; call from a start-up thread), binds with SO_REUSEADDR and
  // listens. Fails with kFailedPrecondition naming the address and the cause (port in use,
  // unknown host, permission). Call once.
  Status Start();
  // Closes the listener and every open connection. Idempotent; does not wait.
  void Stop();

  // The bound port (the kernel's choice for port 0); 0 before Start().
  uint16_t port() const;
  // host:port as bound, e.g. "127.0.0.1:41233".
  std::string bound_address() const;
  size_t open_connections() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace snowcar::api
