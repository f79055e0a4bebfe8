// SPDX-License-Identifier: Apache-2.0
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

#include <algorithm>
#include <array>
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
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "connection_rules.h"
#include "snowcar/api/api_http.h"
#include "snowcar/api/api_router.h"
#include "snowcar/common/log.h"
#include "snowcar/common/mutex.h"
#include "snowcar/common/text.h"

namespace snowcar::api::internal {

template <class Protocol>
class HttpSession;

template <class Protocol>
class HttpServerCore : public std::enable_shared_from_this<HttpServerCore<Protocol>> {
 public:
  using Socket = typename Protocol::socket;
  using Acceptor = typename Protocol::acceptor;
  // Called on the new connection's strand before its first read.
  using Admit = std::function<Admission(Socket&)>;

  HttpServerCore(boost::asio::io_context& io, ConnectionLimits limits,
                 std::shared_ptr<const ApiRouter> router, Admit admit, std::string log_prefix)
      : io_(io),
        limits_(std::move(limits)),
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
      MutexLock lock(mu_);
      for (auto& [id, entry] : sessions_) {
        if (auto s = entry.session.lock()) open.push_back(std::move(s));
      }
    }
    for (auto& s : open) s->Close();
  }

  bool stopped() const { return stopped_.load(); }

  size_t open_connections() const {
    MutexLock lock(mu_);
    return sessions_.size();
  }

  const ConnectionLimits& limits() const { return limits_; }
  const ApiRouter& router() const { return *router_; }
  const Admit& admit() const { return admit_; }
  const std::string& log_prefix() const { return log_prefix_; }

  bool IsProbePath(std::string_view target) const {
    const std::string_view path = TargetPath(target);
    for (const std::string& p : limits_.probe_paths) {
      if (p == path) return true;
    }
    return false;
  }

  ApiResponse TooManyConnections() const {
    return ApiResponse::Error(503,
                              "too many open connections (limit " +
                                  std::to_string(limits_.max_connections) + "); retry later",
                              "");
  }

  void Forget(uint64_t id) {
    MutexLock lock(mu_);
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return;
    if (it->second.kind == SlotKind::kRegular) {
      --regular_;
    } else {
      waiting_spares_.erase(std::remove(waiting_spares_.begin(), waiting_spares_.end(), id),
                            waiting_spares_.end());
    }
    sessions_.erase(it);
  }

  // A spare connection got its request (or its answer): it no longer waits for one, so it is
  // not a candidate to be pushed out.
  void SpareAnswered(uint64_t id) {
    MutexLock lock(mu_);
    waiting_spares_.erase(std::remove(waiting_spares_.begin(), waiting_spares_.end(), id),
                          waiting_spares_.end());
  }

 private:
  struct Entry {
    std::weak_ptr<HttpSession<Protocol>> session;
    SlotKind kind = SlotKind::kRegular;
  };

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
    std::shared_ptr<HttpSession<Protocol>> pushed_out;
    SlotKind kind = SlotKind::kRegular;
    {
      MutexLock lock(mu_);
      kind = regular_ < limits_.max_connections ? SlotKind::kRegular : SlotKind::kSpare;
      const uint64_t id = next_id_++;
      session = std::make_shared<HttpSession<Protocol>>(std::move(socket), this->shared_from_this(),
                                                        id, kind);
      sessions_.emplace(id, Entry{session, kind});
      if (kind == SlotKind::kRegular) {
        ++regular_;
      } else {
        if (waiting_spares_.size() >= std::max<size_t>(1, limits_.spare_connections)) {
          const uint64_t oldest = waiting_spares_.front();
          waiting_spares_.erase(waiting_spares_.begin());
          if (auto it = sessions_.find(oldest); it != sessions_.end()) {
            pushed_out = it->second.session.lock();
          }
        }
        waiting_spares_.push_back(id);
      }
    }
    if (kind == SlotKind::kSpare) {
      spare_since_log_.fetch_add(1);
      // At most one line per kLimitLogEvery, counting the connections since the last one: a
      // flood must not turn into a flood of log lines.
      const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
      auto due = next_limit_log_.load();
      if (now >= due &&
          next_limit_log_.compare_exchange_strong(
              due, now + std::chrono::steady_clock::duration(kLimitLogEvery).count())) {
        SNOWCAR_LOG(kWarn, "api.connection_limit",
                    {{"listener", log_prefix_},
                     {"max_connections", limits_.max_connections},
                     {"connections_over_limit", spare_since_log_.exchange(0)},
                     {"note", "connections over the limit may only ask for the probe paths"}});
      }
    }
    if (pushed_out) pushed_out->PushOut();
    session->Start();
    Accept();
  }

  boost::asio::io_context& io_;
  const ConnectionLimits limits_;
  const std::shared_ptr<const ApiRouter> router_;
  const Admit admit_;
  const std::string log_prefix_;              // "unix" or "tcp", in log lines
  Acceptor acceptor_;                         // used on its own strand only
  boost::asio::steady_timer accept_backoff_;  // same strand as the acceptor
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

// One connection. Every member function runs on the connection's strand (the socket's
// executor), so no member needs a lock.
template <class Protocol>
class HttpSession : public std::enable_shared_from_this<HttpSession<Protocol>> {
 public:
  using Socket = typename Protocol::socket;
  using Stream = boost::beast::basic_stream<Protocol>;

  HttpSession(Socket socket, std::shared_ptr<HttpServerCore<Protocol>> server, uint64_t id,
              SlotKind kind)
      : stream_(std::move(socket)),
        server_(std::move(server)),
        id_(id),
        kind_(kind),
        spare_deadline_(stream_.get_executor()) {}

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

  // A spare connection still waiting for its request makes room for a newer one: it gets
  // the 503 now instead of at its deadline.
  void PushOut() {
    boost::asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
      if (self->answered_) return;
      self->pushed_out_ = true;
      self->stream_.cancel();  // the pending header read ends with operation_aborted
    });
  }

  void Close() {
    boost::asio::post(stream_.get_executor(), [self = this->shared_from_this()] {
      self->closing_ = true;
      self->CloseNow();
    });
  }

 private:
  void Read() {
    namespace http = boost::beast::http;
    if (server_->stopped() || closing_) return CloseNow();
    const ConnectionLimits& limits = server_->limits();
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(limits.header_limit));
    parser_->body_limit(limits.body_limit);
    if (kind_ == SlotKind::kSpare) {
      // Not the stream's own deadline: that one closes the socket when it fires, and a spare
      // connection that ran out of time still gets its 503. This timer only ends the read.
      stream_.expires_never();
      spare_deadline_.expires_after(limits.spare_header_timeout);
      spare_deadline_.async_wait([self = this->shared_from_this()](boost::beast::error_code ec) {
        if (ec || self->answered_) return;
        self->pushed_out_ = true;
        self->stream_.cancel();
      });
    } else {
      stream_.expires_after(limits.header_timeout);
    }
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = this->shared_from_this()](boost::beast::error_code ec, size_t) {
                              self->OnHeader(ec);
                            });
  }

  // True for the ways a read ends when there is nobody (left) to answer.
  static bool ClientGone(const boost::beast::error_code& ec) {
    namespace http = boost::beast::http;
    namespace net = boost::asio;
    return ec == http::error::end_of_stream || ec == net::error::eof ||
           ec == net::error::connection_reset || ec == net::error::broken_pipe ||
           ec == http::error::partial_message;
  }

  void OnHeader(boost::beast::error_code ec) {
    namespace http = boost::beast::http;
    if (kind_ == SlotKind::kSpare) {
      answered_ = true;
      spare_deadline_.cancel();
      server_->SpareAnswered(id_);
      if (closing_ || server_->stopped()) return CloseNow();
      if (pushed_out_) {
        // Too slow, or pushed out by a newer connection: it still learns why, instead of
        // seeing the connection vanish.
        return Write(server_->TooManyConnections(), 11, /*keep_alive=*/false);
      }
    }
    if (ec == boost::beast::error::timeout || ec == boost::asio::error::operation_aborted ||
        ClientGone(ec)) {
      // The client left, went silent, or we are stopping: nobody to answer.
      return CloseNow();
    }
    if (ec) return AnswerReadFailure(ec);
    const auto& header = parser_->get();
    if (refusal_) return Write(*refusal_, header.version(), /*keep_alive=*/false);
    if (kind_ == SlotKind::kSpare) {
      if (header.method() != http::verb::get || !server_->IsProbePath(header.target())) {
        return Write(server_->TooManyConnections(), header.version(), /*keep_alive=*/false);
      }
      // A probe: no body to wait for (a GET), answered at once.
      return Dispatch(/*keep_alive_allowed=*/false);
    }
    if (parser_->is_done()) return Dispatch(/*keep_alive_allowed=*/true);
    stream_.expires_after(server_->limits().read_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = this->shared_from_this()](boost::beast::error_code ec2, size_t) {
                       self->OnBody(ec2);
                     });
  }

  void OnBody(boost::beast::error_code ec) {
    if (ec == boost::beast::error::timeout || ec == boost::asio::error::operation_aborted ||
        ClientGone(ec)) {
      return CloseNow();
    }
    if (ec) return AnswerReadFailure(ec);
    Dispatch(/*keep_alive_allowed=*/true);
  }

  void AnswerReadFailure(const boost::beast::error_code& ec) {
    const ApiResponse r = ErrorForReadFailure(ec, server_->limits());
    SNOWCAR_LOG(
        kDebug, "api.bad_request",
        {{"listener", server_->log_prefix()}, {"status", r.status}, {"error", ec.message()}});
    Write(r, 11, /*keep_alive=*/false);
  }

  void Dispatch(bool keep_alive_allowed) {
    const auto& message = parser_->get();
    ApiRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.body = message.body();
    request.peer = peer_;
    const ApiResponse response = server_->router().Handle(request);
    SNOWCAR_LOG(kDebug, "api.request",
                {{"listener", server_->log_prefix()},
                 {"method", request.method},
                 {"target", request.target},
                 {"status", response.status}});
    Write(response, message.version(), keep_alive_allowed && message.keep_alive());
  }

  void Write(const ApiResponse& r, unsigned version, bool keep_alive) {
    namespace http = boost::beast::http;
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(version == 10 ? 10 : 11);
    res->result(static_cast<unsigned>(r.status));
    res->reason(HttpReasonPhrase(r.status));
    res->set(http::field::server, "snowcar");
    res->set(http::field::content_type, r.content_type);
    for (const auto& [k, v] : r.headers) res->set(k, v);
    res->body() = r.body;
    res->keep_alive(keep_alive && !server_->stopped());
    res->prepare_payload();
    stream_.expires_after(server_->limits().read_timeout);
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](boost::beast::error_code ec, size_t) {
                        if (ec) return self->CloseNow();
                        if (!res->keep_alive()) return self->Linger();
                        self->Read();
                      });
  }

  // After the last answer: stop sending, then read and discard until the client closes or
  // kLingerTimeout passes, and only then close (see kLingerTimeout for why).
  void Linger() {
    if (closing_ || server_->stopped()) return CloseNow();
    boost::beast::error_code ignored;
    stream_.socket().shutdown(Socket::shutdown_send, ignored);
    stream_.expires_after(kLingerTimeout);
    Drain();
  }

  void Drain() {
    stream_.async_read_some(boost::asio::buffer(drain_),
                            [self = this->shared_from_this()](boost::beast::error_code ec, size_t) {
                              if (ec || self->closing_) return self->CloseNow();
                              self->Drain();
                            });
  }

  void CloseNow() {
    spare_deadline_.cancel();
    boost::beast::error_code ignored;
    stream_.socket().shutdown(Socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
  }

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::shared_ptr<HttpServerCore<Protocol>> server_;
  const uint64_t id_;
  const SlotKind kind_;
  std::string peer_;
  std::optional<ApiResponse> refusal_;
  boost::asio::steady_timer spare_deadline_;  // spare: the time it has to send its request
  bool answered_ = false;    // spare: its one request was read (or it was answered anyway)
  bool pushed_out_ = false;  // spare: too slow, or made room for a newer connection
  bool closing_ = false;     // Close() was called (server stopping)
  std::array<char, 512> drain_{};
};

}  // namespace snowcar::api::internal
