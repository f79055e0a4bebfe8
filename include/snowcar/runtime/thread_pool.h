// SPDX-License-Identifier: Apache-2.0
// The one thread pool: a boost::asio::io_context run by N threads.
//
// Source pollers, sink lanes and the state socket all post work here; each of them owns a
// strand (boost::asio::make_strand(pool.context())) so its own work runs serially while
// different pollers and lanes run concurrently. Nothing may block a pool thread on the
// network: HTTP and Kafka waits are asynchronous.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <optional>
#include <thread>
#include <vector>

namespace snowcar::runtime {

class ThreadPool {
 public:
  // threads == 0 means one per hardware thread (at least 1).
  explicit ThreadPool(size_t threads);
  ~ThreadPool();  // Stop() + Join()

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  boost::asio::io_context& context() { return io_; }
  size_t size() const { return size_; }

  // Starts the threads. Work posted before Start() runs once they are up.
  void Start();
  // Lets run() return once no work is left (queued handlers still run).
  void Drain();
  // Stops the io_context now: pending handlers are abandoned.
  void Stop();
  // Waits for every pool thread to exit. Safe to call more than once.
  void Join();

 private:
  size_t size_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard_;
  std::vector<std::thread> threads_;
};

}  // namespace snowcar::runtime
