// SPDX-License-Identifier: Apache-2.0
// MemoryTrimmer: it keeps running on the pool until stopped, and Stop leaves no pending work
// behind (the sidecar drains its pool after stopping it).
#include "../../../src/runtime/memory_trim.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>

namespace snowcar::runtime {
namespace {

TEST(MemoryTrimmer, KeepsThePoolBusyUntilStoppedThenLetsItDrain) {
  boost::asio::io_context io;
  MemoryTrimmer trimmer(io, std::chrono::milliseconds(5));
  trimmer.Start();
  // While running, the trimmer always has a wait pending: run_for does not run out of work.
  EXPECT_GT(io.run_for(std::chrono::milliseconds(40)), 0u);
  EXPECT_FALSE(io.stopped());
  trimmer.Stop();
  io.restart();
  // After Stop only the cancelled wait's completion is left, and then nothing.
  io.run();
  EXPECT_TRUE(io.stopped());
}

TEST(MemoryTrimmer, ZeroIntervalIsOff) {
  boost::asio::io_context io;
  MemoryTrimmer trimmer(io, std::chrono::milliseconds(0));
  trimmer.Start();
  EXPECT_EQ(io.run(), 0u);
}

}  // namespace
}  // namespace snowcar::runtime
