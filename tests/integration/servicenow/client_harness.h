// SPDX-License-Identifier: Apache-2.0
// What the client's integration tests share: an io_context run by two threads (the pool's
// stand-in), a way to send and wait for the answer with a deadline, and default options.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "snowcar/servicenow/curl_table_client.h"

namespace snowcar::servicenow::testing {

class IoThreads {
 public:
  explicit IoThreads(int n = 2) : guard_(io_.get_executor()) {
    for (int i = 0; i < n; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  ~IoThreads() { Join(); }
  void Join() {
    guard_.reset();
    io_.stop();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard_;
  std::vector<std::thread> threads_;
};

inline ClientOptions BasicOptions(const std::string& base_url) {
  ClientOptions o;
  o.base_url = base_url;
  o.username = "svc-user";
  o.password = "Pa55-word-for-tests";
  o.connect_timeout_ms = 2000;
  o.request_timeout_ms = 5000;
  o.retry.max_attempts = 4;
  o.retry.initial_backoff_ms = 10;
  o.retry.max_backoff_ms = 40;
  o.retry.max_elapsed_ms = 20000;
  return o;
}

inline InstanceRequest Get(std::string target) {
  InstanceRequest r;
  r.method = Method::kGet;
  r.target = std::move(target);
  return r;
}

inline InstanceRequest WithBody(Method m, std::string target, std::string body) {
  InstanceRequest r;
  r.method = m;
  r.target = std::move(target);
  r.body = std::move(body);
  return r;
}

// Sends and waits (deadline 30 s) for the completion.
inline CallResult SendAndWait(TableClient& client, boost::asio::io_context& io,
                              InstanceRequest request) {
  auto promise = std::make_shared<std::promise<CallResult>>();
  auto future = promise->get_future();
  client.Send(std::move(request), boost::asio::make_strand(io),
              [promise](CallResult r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "no completion within 30 s";
    return {};
  }
  return future.get();
}

// Several calls at once; waits for all of them.
inline std::vector<CallResult> SendAllAndWait(TableClient& client, boost::asio::io_context& io,
                                              const std::vector<InstanceRequest>& requests) {
  std::vector<std::future<CallResult>> futures;
  for (const auto& r : requests) {
    auto promise = std::make_shared<std::promise<CallResult>>();
    futures.push_back(promise->get_future());
    client.Send(r, boost::asio::make_strand(io),
                [promise](CallResult res) { promise->set_value(std::move(res)); });
  }
  std::vector<CallResult> out;
  for (auto& f : futures) {
    if (f.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
      ADD_FAILURE() << "no completion within 30 s";
      out.emplace_back();
      continue;
    }
    out.push_back(f.get());
  }
  return out;
}

inline std::unique_ptr<CurlTableClient> MakeClient(boost::asio::io_context& io, ClientOptions o,
                                                   ClientSeams seams = {}) {
  auto c = CurlTableClient::Create(io, std::move(o), std::move(seams));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

}  // namespace snowcar::servicenow::testing
