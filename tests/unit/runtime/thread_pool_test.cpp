// SPDX-License-Identifier: Apache-2.0
#include "snowcar/runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace snowcar::runtime {
namespace {

TEST(ThreadPoolTest, ZeroMeansHardwareThreads) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.size(), std::max(1u, std::thread::hardware_concurrency()));
}

TEST(ThreadPoolTest, RunsWorkOnSeveralThreads) {
  ThreadPool pool(2);
  pool.Start();
  std::mutex mu;
  std::condition_variable cv;
  std::set<std::thread::id> ids;
  int done = 0;
  std::atomic<int> inside{0};
  // Two handlers that each wait for the other to be running prove two threads serve.
  for (int i = 0; i < 2; ++i) {
    boost::asio::post(pool.context(), [&] {
      inside.fetch_add(1);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (inside.load() < 2 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      std::lock_guard lock(mu);
      ids.insert(std::this_thread::get_id());
      ++done;
      cv.notify_all();
    });
  }
  std::unique_lock lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return done == 2; }));
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ThreadPoolTest, StrandSerialisesItsHandlers) {
  ThreadPool pool(2);
  pool.Start();
  auto strand = boost::asio::make_strand(pool.context());
  std::atomic<int> concurrent{0};
  std::atomic<int> max_concurrent{0};
  std::atomic<int> done{0};
  for (int i = 0; i < 200; ++i) {
    boost::asio::post(strand, [&] {
      const int now = concurrent.fetch_add(1) + 1;
      int seen = max_concurrent.load();
      while (now > seen && !max_concurrent.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::yield();
      concurrent.fetch_sub(1);
      done.fetch_add(1);
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (done.load() < 200 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(done.load(), 200);
  EXPECT_EQ(max_concurrent.load(), 1);
}

TEST(ThreadPoolTest, DrainFinishesQueuedWorkThenJoins) {
  ThreadPool pool(2);
  std::atomic<int> ran{0};
  for (int i = 0; i < 100; ++i) boost::asio::post(pool.context(), [&] { ran.fetch_add(1); });
  pool.Start();
  pool.Drain();
  pool.Join();
  EXPECT_EQ(ran.load(), 100);
}

TEST(ThreadPoolTest, HandlerExceptionDoesNotKillThePool) {
  ThreadPool pool(1);
  pool.Start();
  std::atomic<bool> after{false};
  boost::asio::post(pool.context(), [] { throw std::runtime_error("boom"); });
  boost::asio::post(pool.context(), [&] { after = true; });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!after.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(after.load());
}

}  // namespace
}  // namespace snowcar::runtime
