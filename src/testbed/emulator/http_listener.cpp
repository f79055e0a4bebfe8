// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/http_listener.h"

#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "snowcar/common/log.h"

namespace snowcar::emulator {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const HttpListener::Handler& handler, uint64_t max_body,
          int64_t idle_ms, std::string local_host)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        idle_timer_(socket_.get_executor()),
        handler_(handler),
        max_body_(max_body),
        idle_ms_(idle_ms),
        local_host_(std::move(local_host)) {}

  void Start() { ReadNext(); }

  // Only once no thread runs the io_context (listener shutdown).
  void CloseStopped() {
    timer_.cancel();
    idle_timer_.cancel();
    CloseNow();
  }

 private:
  void ReadNext() {
    parser_.emplace();
    parser_->body_limit(max_body_);
    parser_->header_limit(64 * 1024);
    if (idle_ms_ > 0) {
      idle_timer_.expires_after(std::chrono::milliseconds(idle_ms_));
      idle_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
        if (!ec) self->CloseNow();
      });
    }
    bhttp::async_read(
        socket_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    idle_timer_.cancel();
    if (ec == bhttp::error::body_limit) {
      EmulatorResponse r;
      r.status = 413;
      r.body =
          "{\"error\":{\"message\":\"Request body too large\",\"detail\":null},"
          "\"status\":\"failure\"}";
      r.headers.push_back({"Content-Type", "application/json;charset=UTF-8"});
      r.close = true;
      Send(std::move(r), false);
      return;
    }
    if (ec) {
      CloseNow();
      return;
    }
    auto& msg = parser_->get();
    EmulatorRequest req;
    req.method = std::string(msg.method_string());
    req.target = std::string(msg.target());
    const size_t q = req.target.find('?');
    req.path = req.target.substr(0, q);
    if (q != std::string::npos) req.query = req.target.substr(q + 1);
    for (const auto& field : msg) {
      req.headers.push_back({std::string(field.name_string()), std::string(field.value())});
    }
    req.body = std::move(msg.body());
    const std::string* host = req.FindHeader("Host");
    req.host = (host != nullptr && !host->empty()) ? *host : local_host_;
    const bool keep_alive = msg.keep_alive();

    EmulatorResponse response = handler_(req);
    const int64_t delay = response.delay_ms;
    if (delay > 0) {
      timer_.expires_after(std::chrono::milliseconds(delay));
      timer_.async_wait([self = shared_from_this(), r = std::move(response),
                         keep_alive](beast::error_code wait_ec) mutable {
        if (wait_ec) return;  // closed while waiting
        self->Send(std::move(r), keep_alive);
      });
      return;
    }
    Send(std::move(response), keep_alive);
  }

  void Send(EmulatorResponse response, bool keep_alive) {
    // With no body to cut (204), a mid-response drop becomes a close before the reply:
    // clients accept a header block cut by a close as complete.
    if (response.delivery == Delivery::kDropBeforeReply ||
        (response.delivery == Delivery::kDropMidBody && response.body.empty())) {
      CloseNow();
      return;
    }
    keep_alive = keep_alive && !response.close && response.delivery == Delivery::kFull;
    out_head_ = SerializeHead(response, keep_alive);
    out_body_ = std::move(response.body);
    const bool cut = response.delivery == Delivery::kDropMidBody;
    const size_t body_len = cut ? out_body_.size() / 2 : out_body_.size();
    std::array<asio::const_buffer, 2> buffers{asio::buffer(out_head_),
                                              asio::buffer(out_body_.data(), body_len)};
    asio::async_write(socket_, buffers,
                      [self = shared_from_this(), keep_alive, cut](beast::error_code ec, size_t) {
                        if (ec || !keep_alive || cut) {
                          self->CloseNow();
                          return;
                        }
                        self->ReadNext();
                      });
  }

  void CloseNow() {
    beast::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_both, ec);
    socket_.close(ec);
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  asio::steady_timer idle_timer_;
  const HttpListener::Handler& handler_;
  const uint64_t max_body_;
  const int64_t idle_ms_;
  const std::string local_host_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::string out_head_;
  std::string out_body_;
};

}  // namespace

struct HttpListener::Impl {
  Impl(Handler h, int n, uint64_t max_body, int64_t idle)
      : handler(std::move(h)),
        threads(n < 1 ? 1 : n),
        max_body(max_body),
        idle_ms(idle),
        acceptor(ioc) {}

  void Accept() {
    acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket s) {
      if (ec) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
        SNOWCAR_LOG(kWarn, "emulator.accept_failed", {{"error", ec.message()}});
      } else {
        beast::error_code opt_ec;
        s.set_option(tcp::no_delay(true), opt_ec);
        auto session =
            std::make_shared<Session>(std::move(s), handler, max_body, idle_ms, local_host);
        {
          std::lock_guard lock(mu);
          // Weak references: a session lives as long as its pending operations.
          sessions.push_back(session);
          if (sessions.size() > 256) {
            std::erase_if(sessions, [](const std::weak_ptr<Session>& w) { return w.expired(); });
          }
        }
        session->Start();
      }
      Accept();
    });
  }

  Handler handler;
  const int threads;
  const uint64_t max_body;
  const int64_t idle_ms;
  asio::io_context ioc;
  tcp::acceptor acceptor;
  std::vector<std::thread> pool;
  std::string local_host;
  std::atomic<uint16_t> port{0};
  std::mutex mu;
  std::vector<std::weak_ptr<Session>> sessions;
  bool started = false;
  bool stopped = false;
};

HttpListener::HttpListener(Handler handler, int threads, uint64_t max_body_bytes,
                           int64_t idle_timeout_ms)
    : impl_(std::make_unique<Impl>(std::move(handler), threads, max_body_bytes, idle_timeout_ms)) {}

HttpListener::~HttpListener() { Stop(); }

Status HttpListener::Start(const std::string& host, uint16_t port) {
  if (impl_->started) return Status::FailedPrecondition("emulator listener already started");
  beast::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) return Status::InvalidArgument("emulator host '" + host + "' is not an IP address");
  const tcp::endpoint endpoint(address, port);
  impl_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(endpoint, ec);
  if (!ec) impl_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::Unavailable("emulator cannot listen on " + host + ":" + std::to_string(port) +
                               ": " + ec.message());
  }
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->local_host = host + ":" + std::to_string(impl_->port.load());
  impl_->started = true;
  impl_->Accept();
  for (int i = 0; i < impl_->threads; ++i) {
    impl_->pool.emplace_back([this] { impl_->ioc.run(); });
  }
  return Status::Ok();
}

void HttpListener::Stop() {
  if (!impl_->started || impl_->stopped) return;
  impl_->stopped = true;
  impl_->ioc.stop();
  for (auto& t : impl_->pool) t.join();
  impl_->pool.clear();
  // No thread runs the io_context now: close the listener and every connection directly, so
  // clients see the close at once; pending handlers die with the io_context.
  beast::error_code ec;
  impl_->acceptor.close(ec);
  std::lock_guard lock(impl_->mu);
  for (auto& weak : impl_->sessions) {
    if (auto s = weak.lock()) s->CloseStopped();
  }
  impl_->sessions.clear();
}

uint16_t HttpListener::port() const { return impl_->port.load(); }

}  // namespace snowcar::emulator
