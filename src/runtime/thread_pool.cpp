// SPDX-License-Identifier: Apache-2.0
#include "snowcar/runtime/thread_pool.h"

#include <pthread.h>

#include <algorithm>

#include "snowcar/common/log.h"

namespace snowcar::runtime {

namespace {
size_t ResolveThreads(size_t requested) {
  if (requested > 0) return requested;
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}
}  // namespace

ThreadPool::ThreadPool(size_t threads)
    : size_(ResolveThreads(threads)), io_(static_cast<int>(ResolveThreads(threads))) {}

ThreadPool::~ThreadPool() {
  Stop();
  Join();
}

void ThreadPool::Start() {
  guard_.emplace(io_.get_executor());
  threads_.reserve(size_);
  for (size_t i = 0; i < size_; ++i) {
    threads_.emplace_back([this, i] {
      // Named so per-thread CPU (top -H, /proc/<pid>/task) tells the pool from librdkafka's
      // and RocksDB's threads.
      pthread_setname_np(pthread_self(), "snowcar-pool");
      // A handler that throws is a bug in that handler; log it and keep the thread serving,
      // so one bad request cannot take the whole sidecar down.
      for (;;) {
        try {
          io_.run();
          return;
        } catch (const std::exception& e) {
          SNOWCAR_LOG(kError, "pool.handler_exception",
                      {{"thread", static_cast<int64_t>(i)}, {"what", e.what()}});
        }
      }
    });
  }
}

void ThreadPool::Drain() { guard_.reset(); }

void ThreadPool::Stop() {
  guard_.reset();
  io_.stop();
}

void ThreadPool::Join() {
  for (auto& t : threads_) {
    if (t.joinable() && t.get_id() != std::this_thread::get_id()) t.join();
  }
  threads_.clear();
}

}  // namespace snowcar::runtime
