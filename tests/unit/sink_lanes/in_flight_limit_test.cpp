// SPDX-License-Identifier: Apache-2.0
#include "sink/writer/in_flight_limit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <vector>

namespace snowcar::sink {
namespace {

TEST(InFlightLimit, GrantsUpToMaxThenQueuesInOrder) {
  boost::asio::io_context io;
  InFlightLimit limit(2);
  std::vector<int> granted;
  for (int i = 0; i < 5; ++i) {
    limit.Acquire(io.get_executor(), [&granted, i] { granted.push_back(i); });
  }
  io.restart();
  io.poll();
  EXPECT_EQ(granted, (std::vector<int>{0, 1}));
  EXPECT_EQ(limit.in_flight(), 2);
  EXPECT_EQ(limit.waiting(), 3u);

  limit.Release();
  io.restart();
  io.poll();
  EXPECT_EQ(granted, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(limit.in_flight(), 2);

  limit.Release();
  limit.Release();
  limit.Release();
  io.restart();
  io.poll();
  EXPECT_EQ(granted, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(limit.in_flight(), 1);
  limit.Release();
  EXPECT_EQ(limit.in_flight(), 0);
  EXPECT_EQ(limit.max_observed(), 2);
}

TEST(InFlightLimit, ZeroOrNegativeMaxStillLetsOneThrough) {
  boost::asio::io_context io;
  InFlightLimit limit(0);
  int granted = 0;
  limit.Acquire(io.get_executor(), [&] { ++granted; });
  limit.Acquire(io.get_executor(), [&] { ++granted; });
  io.restart();
  io.poll();
  EXPECT_EQ(granted, 1);
  EXPECT_EQ(limit.max(), 1);
}

}  // namespace
}  // namespace snowcar::sink
