// SPDX-License-Identifier: Apache-2.0
// libcurl's multi interface driven by boost::asio: curl names the sockets to watch and the
// time to wake it; asio waits for both without holding a thread.
//
// Everything here runs on ONE strand (libcurl multi handles are not thread-safe). Pending
// asio handlers hold a shared_ptr to the loop, so it lives until the last one has run.
#pragma once

#include <curl/curl.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <unordered_map>

#include "curl_transfer.h"

namespace snowcar::servicenow {

using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

class MultiLoop : public std::enable_shared_from_this<MultiLoop> {
 public:
  // max_connections bounds connections per host (the connection cache keeps them open).
  MultiLoop(Strand strand, long max_connections);  // NOLINT(google-runtime-int)
  ~MultiLoop();
  MultiLoop(const MultiLoop&) = delete;
  MultiLoop& operator=(const MultiLoop&) = delete;

  // REQUIRES: on the strand. Starts the transfer; its `done` runs on the strand, after
  // libcurl let go of it, never inside Add.
  void Add(std::unique_ptr<Transfer> transfer);
  // REQUIRES: on the strand. Ends every transfer (done gets CURLE_ABORTED_BY_CALLBACK),
  // closes the connections and stops watching. Later Adds fail the same way.
  void Shutdown();

 private:
  struct Watch {
    explicit Watch(Strand& strand, int fd) : descriptor(strand, fd) {}
    boost::asio::posix::stream_descriptor descriptor;
    int want = 0;  // CURL_POLL_IN / OUT / INOUT
    bool reading = false;
    bool writing = false;
    bool gone = false;
  };

  static int OnSocket(CURL* easy, curl_socket_t fd, int what, void* self, void* socket_data);
  static int OnTimer(CURLM* multi, long timeout_ms, void* self);  // NOLINT(google-runtime-int)
  static int OnCloseSocket(void* self, curl_socket_t fd);

  void Arm(int fd, const std::shared_ptr<Watch>& watch);
  void Forget(int fd);
  void Action(curl_socket_t fd, int events);
  void Reap();

  Strand strand_;
  CURLM* multi_ = nullptr;
  boost::asio::steady_timer timer_;
  std::unordered_map<int, std::shared_ptr<Watch>> watches_;
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> transfers_;
  bool shut_down_ = false;
};

}  // namespace snowcar::servicenow
