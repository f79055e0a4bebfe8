// SPDX-License-Identifier: Apache-2.0
// Helpers for the tests that talk to a real Unix socket: a temp dir, a server running on its
// own io_context threads, and a raw client for sending bytes no HTTP library would send.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "snowcar/api/unix_socket_server.h"

namespace snowcar::api::testing {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/snowcar-api-XXXXXX";  // short: sun_path holds 107 bytes
    if (mkdtemp(tmpl) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Polls `done` until it holds or `deadline` passes; true when it held.
inline bool WaitFor(const std::function<bool()>& done,
                    std::chrono::milliseconds deadline = std::chrono::seconds(5)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    // A short pause between polls of the condition (not a wait for a guessed duration).
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

// An io_context run by two threads (like the runtime's pool on this machine).
class IoThreads {
 public:
  IoThreads() : guard_(io_.get_executor()) {
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  ~IoThreads() {
    guard_.reset();
    io_.stop();
    for (auto& t : threads_) t.join();
  }
  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::vector<std::thread> threads_;
};

// A blocking client socket with a receive timeout, so a test can never hang on a read.
class RawConnection {
 public:
  explicit RawConnection(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.data(), std::min(path.size(), sizeof addr.sun_path - 1));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  ~RawConnection() {
    if (fd_ >= 0) close(fd_);
  }
  bool connected() const { return connected_; }

  // Writes everything; false when the peer closed first (EPIPE) or the send timed out.
  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  void ShutdownWrite() { shutdown(fd_, SHUT_WR); }

  // Reads until the peer closes (or the 5 s timeout, reported as nullopt). A reset counts as
  // a close here; was_reset() tells the two apart.
  std::optional<std::string> ReadToClose() {
    std::string out;
    char buf[4096];
    while (true) {
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return out;
      if (n < 0) {
        if (errno == ECONNRESET) {
          reset_ = true;
          return out;
        }
        return std::nullopt;
      }
      out.append(buf, static_cast<size_t>(n));
    }
  }
  // True when a read ended with ECONNRESET instead of an orderly close.
  bool was_reset() const { return reset_; }

  // Waits until something (data, or the peer's close) can be read, at most `deadline`.
  bool WaitReadable(std::chrono::milliseconds deadline) {
    pollfd p{fd_, POLLIN, 0};
    return poll(&p, 1, static_cast<int>(deadline.count())) == 1;
  }

  // Reads one HTTP response with a Content-Length (enough for this server's answers).
  std::optional<std::string> ReadResponse() {
    while (true) {
      const size_t head_end = pending_.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        size_t length = 0;
        const std::string head = pending_.substr(0, head_end);
        std::string lower = head;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const size_t cl = lower.find("content-length:");
        if (cl != std::string::npos) length = std::stoul(head.substr(cl + 15));
        if (pending_.size() >= head_end + 4 + length) {
          std::string response = pending_.substr(0, head_end + 4 + length);
          pending_.erase(0, head_end + 4 + length);
          return response;
        }
      }
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      pending_.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool reset_ = false;
  std::string pending_;
};

// "HTTP/1.1 404 Not Found\r\n..." -> 404; 0 when it is not a status line.
inline int StatusOf(const std::string& response) {
  if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.c_str() + 9);
}

inline std::string BodyOf(const std::string& response) {
  const size_t p = response.find("\r\n\r\n");
  return p == std::string::npos ? std::string() : response.substr(p + 4);
}

}  // namespace snowcar::api::testing
