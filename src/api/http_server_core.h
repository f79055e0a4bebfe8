// The HTTP/1.1 connection handling shared by the Unix socket server and the TCP admin
// listener: accept loop, connection cap, per-connection sessions, size limits and timeouts.
//
// It is a template over the Asio stream protocol (local::stream_protocol or ip::tcp) because
// only the acceptor and socket types differ; binding the acceptor (a socket file, an address)
// and deciding who may talk (peer credentials) stay with the concrete servers.
//
// Threads: none of its own. The acceptor and every session have their own strand on the
// caller's io_context, so slow clients never block each other.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "snowcar/api/http.h"
#include "snowcar/api/router.h"
#include "snowcar/common/log.h"

namespace snowcar::api::internal {

struct HttpLimits {
  size_t header_limit = size_t{8} * 1024;
  size_t body_limit = size_t{64} * 1024;
  std::chrono::milliseconds read_timeout{10000};
  size_t max_connections = 64;
};

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

template <class Protocol>
class HttpSession;

template <class Protocol>
class HttpServerCore : public std::enable_shared_from_this<HttpServerCore<Protocol>> {
 public:
  using Socket = typename Protocol::socket;
  using Acceptor = typename Protocol::acceptor;
  // Called on the new connection's strand before its first read.
  using Admit = std::function<Admission(Socket&)>;

  HttpServerCore(boost::asio::io_context& io, HttpLimits limits,
                 std::shared_ptr<const Router> router, Admit admit, std::string log_prefix)
      : io_(io),
        limits_(limits),
        router_(std::move(router)),
        admit_(std::move(admit)),
        log_prefix_(std::move(log_prefix)),
        acceptor_(boost::asio::make_strand(io)),
        accept_backoff_(acceptor_.get_executor()) {}

  // Bind and listen on it before StartAccepting(); used from one thread during start-up.
  Acceptor& acceptor() { return acceptor_; }

  void StartAccepting() {
    boost::asio::post(acceptor_.get_executor(),
                      [self = this->shared_from_this()] { self->Accept(); });
  }

  // Closes the acceptor and every open connection. Idempotent; does not wait.
  void Stop() {
    if (stopped_.exchange(true)) return;
    boost::asio::post(acceptor_.get_executor(), [self = this->shared_from_this()] {
      boost::beast::error_code ignored;
      self->acceptor_.close(ignored);
      self->accept_backoff_.cancel();
    });
    std::vector<std::shared_ptr<HttpSession<Protocol>>> open;
    {
      std::lock_guard lock(mu_);
      for (auto& [id, weak] : sessions_) {
        if (auto s = weak.lock()) open.push_back(std::move(s));
      }
    }
    for (auto& s : open) s->Close();
  }

  bool stopped() const { return stopped_.load(); }

  size_t open_connections() const {
    std::lock_guard lock(mu_);
    return sessions_.size();
  }

  const HttpLimits& limits() const { return limits_; }
  const Router& router() const { return *router_; }
  const Admit& admit() const { return admit_; }
  const std::string& log_prefix() const { return log_prefix_; }

  void Forget(uint64_t id) {
    std::lock_guard lock(mu_);
    sessions_.erase(id);
  }

 private:
  void Accept() {
    acceptor_.async_accept(
        boost::asio::make_strand(io_),
        [self = this->shared_from_this()](boost::beast::error_code ec, Socket socket) {
          self->OnAccept(ec, std::move(socket));
        });
  }

  void OnAccept(boost::beast::error_code ec, Socket socket) {
    if (ec == boost::asio::error::operation_aborted || stopped_) return;
    if (ec) {
      // EMFILE and friends: keep serving, but pause first so a persistent failure does not
      // spin a pool thread and flood the log.
      SNOWCAR_LOG(kWarn, "api.accept_failed", {{"listener", log_prefix_}, {"error", ec.message()}});
      accept_backoff_.expires_after(std::chrono::milliseconds(100));
      accept_backoff_.async_wait([self = this->shared_from_this()](boost::beast::error_code w) {
        if (!w && !self->stopped_) self->Accept();
      });
      return;
    }
    std::shared_ptr<HttpSession<Protocol>> session;
    bool over_limit = false;
    {
      std::lock_guard lock(mu_);
      over_limit = sessions_.size() >= limits_.max_connections;
      const uint64_t id = next_id_++;
      session =
          std::make_shared<HttpSession<Protocol>>(std::move(socket), this->shared_from_this(), id);
      sessions_.emplace(id, session);
    }
    if (over_limit) {
      SNOWCAR_LOG(kWarn, "api.connection_limit",
                  {{"listener", log_prefix_}, {"max_connections", limits_.max_connections}});
      session->Reject(Response::Error(503,
                                      "too many open connections (limit " +
                                          std::to_string(limits_.max_connections) +
                                          "); retry later",
                                      ""));
    } else {
      session->Start();
    }
    Accept();
  }

  boost::asio::io_context& io_;
  const HttpLimits limits_;
  const std::shared_ptr<const Router> router_;
  const Admit admit_;
  const std::string log_prefix_;              // "unix" or "tcp", in log lines
  Acceptor acceptor_;                         // used on its own strand only
  boost::asio::steady_timer accept_backoff_;  // same strand as the acceptor
  std::atomic<bool> stopped_{false};

  mutable std::mutex mu_;
  uint64_t next_id_ = 0;                                                         // guarded by mu_
  std::unordered_map<uint64_t, std::weak_ptr<HttpSession<Protocol>>> sessions_;  // guarded by mu_
};

// One connection. Every member function runs on the connection's strand (the socket's
// executor), so no member needs a lock.
template <class Protocol>
class HttpSession : public std::enable_shared_from_this<HttpSession<Protocol>> {
 public:
  using Socket = typename Protocol::socket;
  using Stream = boost::beast::basic_stream<Protocol>;

  HttpSession(Socket socket, std::shared_ptr<HttpServerCore<Protocol>> server, uint64_t id)
      : stream_(std::move(socket)), server_(std::move(server)), id_(id) {}

  ~HttpSession() { server_->Forget(id_); }

  void Start() {
    boost::asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
      if (self->server_->admit()) {
        Admission admission = self->server_->admit()(self->stream_.socket());
        self->peer_ = std::move(admission.peer);
        self->refusal_ = std::move(admission.refusal);
      }
      self->Read();
    });
  }

  // Answers once with `response`, then closes (the connection cap).
  void Reject(Response response) {
    boost::asio::post(stream_.get_executor(),
                      [self = this->shared_from_this(), r = std::move(response)] {
                        self->Write(r, 11, /*keep_alive=*/false);
                      });
  }

  void Close() {
    boost::asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
      boost::beast::error_code ignored;
      self->stream_.socket().shutdown(Socket::shutdown_both, ignored);
      self->stream_.socket().close(ignored);
    });
  }

 private:
  void Read() {
    namespace http = boost::beast::http;
    if (server_->stopped()) return;
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(server_->limits().header_limit));
    parser_->body_limit(server_->limits().body_limit);
    stream_.expires_after(server_->limits().read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](boost::beast::error_code ec, size_t) {
                       self->OnRead(ec);
                     });
  }

  void OnRead(boost::beast::error_code ec) {
    namespace http = boost::beast::http;
    namespace net = boost::asio;
    if (ec == http::error::end_of_stream || ec == boost::beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::broken_pipe ||
        ec == http::error::partial_message) {
      // The client left, went silent, or we are stopping: nobody to answer.
      return Shutdown();
    }
    if (ec) {
      const Response r = ErrorForReadFailure(ec, server_->limits());
      SNOWCAR_LOG(
          kDebug, "api.bad_request",
          {{"listener", server_->log_prefix()}, {"status", r.status}, {"error", ec.message()}});
      return Write(r, 11, /*keep_alive=*/false);
    }
    const auto& message = parser_->get();
    if (refusal_) return Write(*refusal_, message.version(), /*keep_alive=*/false);
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.body = message.body();
    request.peer = peer_;
    const Response response = server_->router().Handle(request);
    SNOWCAR_LOG(kDebug, "api.request",
                {{"listener", server_->log_prefix()},
                 {"method", request.method},
                 {"target", request.target},
                 {"status", response.status}});
    Write(response, message.version(), message.keep_alive());
  }

  void Write(const Response& r, unsigned version, bool keep_alive) {
    namespace http = boost::beast::http;
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(version == 10 ? 10 : 11);
    res->result(static_cast<unsigned>(r.status));
    res->reason(ReasonPhrase(r.status));
    res->set(http::field::server, "snowcar");
    res->set(http::field::content_type, r.content_type);
    for (const auto& [k, v] : r.headers) res->set(k, v);
    res->body() = r.body;
    res->keep_alive(keep_alive && !server_->stopped());
    res->prepare_payload();
    stream_.expires_after(server_->limits().read_timeout);
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](boost::beast::error_code ec, size_t) {
                        if (ec || !res->keep_alive()) return self->Shutdown();
                        self->Read();
                      });
  }

  void Shutdown() {
    boost::beast::error_code ignored;
    stream_.socket().shutdown(Socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::shared_ptr<HttpServerCore<Protocol>> server_;
  const uint64_t id_;
  std::string peer_;
  std::optional<Response> refusal_;
};

}  // namespace snowcar::api::internal
