// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/retry_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace snowcar::servicenow {
namespace {

RetryPolicy Policy() {
  RetryPolicy p;
  p.max_attempts = 10;
  p.max_elapsed_ms = 1'000'000;
  p.initial_backoff_ms = 500;
  p.max_backoff_ms = 3000;
  return p;
}

// Records the ceilings it is asked for and answers with the ceiling (the worst case).
struct MaxJitter {
  std::vector<int64_t>* asked;
  int64_t operator()(int64_t upper) const {
    asked->push_back(upper);
    return upper;
  }
};

TEST(RetryPolicyTest, CeilingDoublesUpToTheMaximum) {
  RetryPolicy p = Policy();
  EXPECT_EQ(BackoffCeilingMs(p, 1), 500);
  EXPECT_EQ(BackoffCeilingMs(p, 2), 1000);
  EXPECT_EQ(BackoffCeilingMs(p, 3), 2000);
  EXPECT_EQ(BackoffCeilingMs(p, 4), 3000);
  EXPECT_EQ(BackoffCeilingMs(p, 400), 3000) << "no overflow on long runs";
}

TEST(RetryPolicyTest, FullJitterSequenceWithFixedDraws) {
  RetryPolicy p = Policy();
  std::vector<int64_t> asked;
  MaxJitter worst{&asked};
  std::vector<int64_t> waits;
  for (int n = 1; n <= 5; ++n) waits.push_back(*NextRetryWaitMs(p, n, 0, std::nullopt, worst));
  EXPECT_EQ(asked, (std::vector<int64_t>{500, 1000, 2000, 3000, 3000}));
  EXPECT_EQ(waits, asked);
  // The lowest draw is 0: full jitter may retry at once.
  JitterSource zero = [](int64_t) { return 0; };
  EXPECT_EQ(NextRetryWaitMs(p, 3, 0, std::nullopt, zero), 0);
  // A draw outside [0, ceiling] is clamped (a broken source cannot stretch the wait).
  JitterSource wild = [](int64_t upper) { return upper * 10; };
  EXPECT_EQ(NextRetryWaitMs(p, 1, 0, std::nullopt, wild), 500);
}

TEST(RetryPolicyTest, DefaultJitterStaysInBounds) {
  JitterSource j = DefaultJitter();
  for (int i = 0; i < 1000; ++i) {
    int64_t v = j(700);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 700);
  }
  EXPECT_EQ(j(0), 0);
}

TEST(RetryPolicyTest, RetryAfterWinsAndIsNotCapped) {
  RetryPolicy p = Policy();
  std::vector<int64_t> asked;
  EXPECT_EQ(NextRetryWaitMs(p, 1, 0, 45000, MaxJitter{&asked}), 45000)
      << "above max backoff, still honoured";
  EXPECT_TRUE(asked.empty()) << "no random draw when the instance named the wait";
  EXPECT_EQ(NextRetryWaitMs(p, 1, 0, 0, MaxJitter{&asked}), 0);
}

TEST(RetryPolicyTest, StopsAtMaxAttempts) {
  RetryPolicy p = Policy();
  p.max_attempts = 3;
  JitterSource zero = [](int64_t) { return 0; };
  EXPECT_TRUE(NextRetryWaitMs(p, 1, 0, std::nullopt, zero));
  EXPECT_TRUE(NextRetryWaitMs(p, 2, 0, std::nullopt, zero));
  EXPECT_FALSE(NextRetryWaitMs(p, 3, 0, std::nullopt, zero)) << "attempts, not retries";
  p.max_attempts = 1;
  EXPECT_FALSE(NextRetryWaitMs(p, 1, 0, std::nullopt, zero));
}

TEST(RetryPolicyTest, StopsWhenTheWaitWouldPassTheBudget) {
  RetryPolicy p = Policy();
  p.max_elapsed_ms = 10000;
  std::vector<int64_t> asked;
  EXPECT_EQ(NextRetryWaitMs(p, 1, 9500, std::nullopt, MaxJitter{&asked}), 500)
      << "ends exactly at the budget: allowed";
  EXPECT_FALSE(NextRetryWaitMs(p, 2, 9500, std::nullopt, MaxJitter{&asked}));
  // Retry-After counts against the budget too.
  EXPECT_FALSE(NextRetryWaitMs(p, 1, 0, 10001, MaxJitter{&asked}));
  EXPECT_EQ(NextRetryWaitMs(p, 1, 0, 10000, MaxJitter{&asked}), 10000);
}

}  // namespace
}  // namespace snowcar::servicenow
