// SPDX-License-Identifier: Apache-2.0
#include "script_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <stdexcept>

namespace snowcar::servicenow::testing {

namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

Reply Json(int status, std::string body) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Content-Type", "application/json;charset=UTF-8");
  return r;
}

ScriptServer::ScriptServer(Handler handler) : handler_(std::move(handler)) {}

ScriptServer::~ScriptServer() { Stop(); }

void ScriptServer::Start() {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 128) != 0) {
    throw std::runtime_error("script server cannot listen");
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

void ScriptServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    workers = std::move(workers_);
  }
  for (auto& t : workers) t.join();
}

std::string ScriptServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<SeenRequest> ScriptServer::requests() const {
  std::lock_guard lock(mu_);
  return seen_;
}

void ScriptServer::AcceptLoop() {
  while (!stopping_) {
    int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    ++connections_;
    std::lock_guard lock(mu_);
    open_fds_.push_back(fd);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

void ScriptServer::Serve(int fd) {
  boost::asio::io_context io;
  tcp::socket socket(io, tcp::v4(), fd);
  boost::beast::flat_buffer buffer;
  auto forget = [&] {
    std::lock_guard lock(mu_);
    open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  };
  for (;;) {
    http::request<http::string_body> req;
    boost::system::error_code ec;
    http::read(socket, buffer, req, ec);
    if (ec) break;
    SeenRequest seen;
    seen.method = std::string(req.method_string());
    seen.target = std::string(req.target());
    seen.body = req.body();
    seen.arrived = std::chrono::steady_clock::now();
    for (const auto& field : req) {
      std::string name(field.name_string());
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      seen.headers[name] = std::string(field.value());
    }
    int index;
    {
      std::lock_guard lock(mu_);
      index = static_cast<int>(seen_.size());
      seen_.push_back(seen);
    }
    int now = ++active_;
    int prev = max_concurrent_.load();
    while (now > prev && !max_concurrent_.compare_exchange_weak(prev, now)) {
    }
    Reply reply = handler_(seen, index);
    if (reply.delay_ms > 0) {
      // Server-side latency (what the test measures), not synchronisation.
      std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
    }
    --active_;
    if (reply.action == Reply::Action::kCloseWithoutAnswer) break;
    http::response<http::string_body> res{static_cast<http::status>(reply.status), 11};
    for (const auto& [name, value] : reply.headers) res.set(name, value);
    res.body() = reply.body;
    res.prepare_payload();
    res.keep_alive(req.keep_alive());
    if (reply.action == Reply::Action::kCloseMidBody) {
      http::response_serializer<http::string_body> sr{res};
      http::write_header(socket, sr, ec);
      const std::string half = reply.body.substr(0, reply.body.size() / 2);
      boost::asio::write(socket, boost::asio::buffer(half), ec);
      break;
    }
    http::write(socket, res, ec);
    if (ec || !req.keep_alive()) break;
  }
  forget();
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

}  // namespace snowcar::servicenow::testing
