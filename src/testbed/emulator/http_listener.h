// SPDX-License-Identifier: Apache-2.0
// The emulator's HTTP/1.1 listener (Boost.Beast over Asio, N threads, keep-alive).
//
// Each connection reads a request, asks the handler for an EmulatorResponse (computed
// synchronously on the pool thread: the table store is in memory), waits the response's delay
// on a timer (never blocking a thread, so latency tests can keep many requests in flight),
// then sends it as the EmulatorResponse's Delivery says: whole, cut mid-body, or not at all.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "snowcar/common/status.h"
#include "testbed/emulator/emulator_http.h"

namespace snowcar::emulator {

class HttpListener {
 public:
  using Handler = std::function<EmulatorResponse(EmulatorRequest&)>;

  // `idle_timeout_ms` > 0 closes a kept-alive connection that sends nothing for that long,
  // as an instance's front end does (clients must cope with a reused connection that the
  // server already closed).
  HttpListener(Handler handler, int threads, uint64_t max_body_bytes, int64_t idle_timeout_ms = 0);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Binds host:port (port 0 = any free port) and starts the threads.
  Status Start(const std::string& host, uint16_t port);
  // Stops accepting, closes every connection and joins the threads. Idempotent.
  void Stop();
  uint16_t port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace snowcar::emulator
