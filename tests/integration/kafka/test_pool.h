// SPDX-License-Identifier: Apache-2.0
// A small io_context run by two threads: the shape of snowcar's pool, without linking the
// runtime module (which pulls in the source and sink).
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>
#include <thread>
#include <vector>

namespace snowcar::kafka::testing {

class TestPool {
 public:
  explicit TestPool(int threads = 2) : guard_(boost::asio::make_work_guard(io_)) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_.run(); });
  }
  ~TestPool() { Join(); }

  boost::asio::io_context& context() { return io_; }
  boost::asio::any_io_executor executor() { return io_.get_executor(); }
  // Runs what is queued, then stops the threads: every posted callback has run afterwards.
  void Join() {
    guard_.reset();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard_;
  std::vector<std::thread> threads_;
};

}  // namespace snowcar::kafka::testing
