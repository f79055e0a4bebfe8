// SPDX-License-Identifier: Apache-2.0
// The HTTP/1.1 connection handling shared by the Unix socket server and the TCP admin
// listener: accept loop, connection cap, per-connection sessions, size limits and timeouts.
//
// Only the accept loop is a template over the Asio stream protocol (local::stream_protocol or
// ip::tcp): binding the acceptor (a socket file, an address) and deciding who may talk (peer
// credentials) stay with the concrete servers. An accepted socket becomes a generic stream
// socket, so the sessions, where Beast's HTTP reading and writing are instantiated, are one
// class (http_session.h) compiled once instead of once per listener: it was the slowest code
// of the build to compile, and it was compiled twice.
//
// Threads: none of its own. The acceptor and every session have their own strand on the
// caller's io_context, so slow clients never block each other.
#pragma once

#include <atomic>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "connection_rules.h"
#include "snowcar/api/api_http.h"
#include "snowcar/api/api_router.h"
#include "snowcar/common/log.h"
#include "snowcar/common/mutex.h"

namespace snowcar::api::internal {

using GenericSocket = boost::asio::generic::stream_protocol::socket;

class HttpSession;  // http_session.h

// What both listeners share once a connection is accepted: the limits, the router, the table
// of open connections and its slots. Not a template, so its code is compiled once.
class HttpServerBase : public std::enable_shared_from_this<HttpServerBase> {
 public:
  HttpServerBase(ConnectionLimits limits, std::shared_ptr<const ApiRouter> router,
                 std::string log_prefix);
  virtual ~HttpServerBase();
  HttpServerBase(const HttpServerBase&) = delete;
  HttpServerBase& operator=(const HttpServerBase&) = delete;

  bool stopped() const { return stopped_.load(); }
  size_t open_connections() const;
  const ConnectionLimits& limits() const { return limits_; }
  const ApiRouter& router() const { return *router_; }
  const std::string& log_prefix() const { return log_prefix_; }
  bool IsProbePath(std::string_view target) const;
  ApiResponse TooManyConnections() const;

  // Called by a session when it ends (its destructor) and when a spare one got its request.
  void Forget(uint64_t id);
  void SpareAnswered(uint64_t id);

 protected:
  // Gives an accepted connection its slot and starts its session; on the acceptor's strand.
  void StartSession(GenericSocket socket, Admission admission);
  // Marks the server stopped and closes every open connection; false if it already was.
  bool StopSessions();

 private:
  struct Entry {
    std::weak_ptr<HttpSession> session;
    SlotKind kind = SlotKind::kRegular;
  };

  const ConnectionLimits limits_;
  const std::shared_ptr<const ApiRouter> router_;
  const std::string log_prefix_;  // "unix" or "tcp", in log lines
  std::atomic<bool> stopped_{false};
  static constexpr std::chrono::seconds kLimitLogEvery{10};
  std::atomic<std::chrono::steady_clock::rep> next_limit_log_{0};
  std::atomic<int64_t> spare_since_log_{0};

  mutable Mutex mu_;
  uint64_t next_id_ SNOWCAR_GUARDED_BY(mu_) = 0;
  size_t regular_ SNOWCAR_GUARDED_BY(mu_) = 0;
  std::vector<uint64_t> waiting_spares_ SNOWCAR_GUARDED_BY(mu_);  // oldest first
  std::unordered_map<uint64_t, Entry> sessions_ SNOWCAR_GUARDED_BY(mu_);
};

// The accept loop of one listener.
template <class Protocol>
class HttpServerCore : public HttpServerBase {
 public:
  using Socket = typename Protocol::socket;
  using Acceptor = typename Protocol::acceptor;
  // Decides about a new connection before its first read (peer credentials, the peer's name
  // for the logs); called on the acceptor's strand, so it must not block.
  using Admit = std::function<Admission(Socket&)>;

  HttpServerCore(boost::asio::io_context& io, ConnectionLimits limits,
                 std::shared_ptr<const ApiRouter> router, Admit admit, std::string log_prefix)
      : HttpServerBase(std::move(limits), std::move(router), std::move(log_prefix)),
        io_(io),
        admit_(std::move(admit)),
        acceptor_(boost::asio::make_strand(io)),
        accept_backoff_(acceptor_.get_executor()) {}

  // Bind and listen on it before StartAccepting(); used from one thread during start-up.
  Acceptor& acceptor() { return acceptor_; }

  void StartAccepting() {
    boost::asio::post(acceptor_.get_executor(), [self = Self()] { self->Accept(); });
  }

  // Closes the acceptor and every open connection. Idempotent; does not wait.
  void Stop() {
    if (!StopSessions()) return;
    boost::asio::post(acceptor_.get_executor(), [self = Self()] {
      boost::system::error_code ignored;
      self->acceptor_.close(ignored);
      self->accept_backoff_.cancel();
    });
  }

 private:
  std::shared_ptr<HttpServerCore> Self() {
    return std::static_pointer_cast<HttpServerCore>(shared_from_this());
  }

  void Accept() {
    acceptor_.async_accept(boost::asio::make_strand(io_),
                           [self = Self()](boost::system::error_code ec, Socket socket) {
                             self->OnAccept(ec, std::move(socket));
                           });
  }

  void OnAccept(boost::system::error_code ec, Socket socket) {
    if (ec == boost::asio::error::operation_aborted || stopped()) return;
    if (ec) {
      // EMFILE and friends: keep serving, but pause first so a persistent failure does not
      // spin a pool thread and flood the log.
      SNOWCAR_LOG(kWarn, "api.accept_failed",
                  {{"listener", log_prefix()}, {"error", ec.message()}});
      accept_backoff_.expires_after(std::chrono::milliseconds(100));
      accept_backoff_.async_wait([self = Self()](boost::system::error_code w) {
        if (!w && !self->stopped()) self->Accept();
      });
      return;
    }
    Admission admission;
    if (admit_) admission = admit_(socket);
    // The socket keeps its own strand as executor through the conversion.
    StartSession(GenericSocket(std::move(socket)), std::move(admission));
    Accept();
  }

  boost::asio::io_context& io_;
  const Admit admit_;
  Acceptor acceptor_;                         // used on its own strand only
  boost::asio::steady_timer accept_backoff_;  // same strand as the acceptor
};

}  // namespace snowcar::api::internal
