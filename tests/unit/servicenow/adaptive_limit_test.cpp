// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/adaptive_limit.h"

#include <gtest/gtest.h>

namespace snowcar::servicenow {
namespace {

TEST(AdaptiveLimitTest, HalvesOnThrottleNeverBelowOne) {
  AdaptiveLimit l(8, true);
  EXPECT_EQ(l.limit(), 8);
  l.OnThrottled();
  EXPECT_EQ(l.limit(), 4);
  l.OnThrottled();
  EXPECT_EQ(l.limit(), 2);
  l.OnThrottled();
  EXPECT_EQ(l.limit(), 1);
  l.OnThrottled();
  EXPECT_EQ(l.limit(), 1);
  AdaptiveLimit odd(5, true);
  odd.OnThrottled();
  EXPECT_EQ(odd.limit(), 2);
}

TEST(AdaptiveLimitTest, OnePermitPerFiftyConsecutiveSuccesses) {
  AdaptiveLimit l(8, true);
  l.OnThrottled();  // 4
  for (int i = 0; i < 49; ++i) l.OnSuccess();
  EXPECT_EQ(l.limit(), 4);
  l.OnSuccess();
  EXPECT_EQ(l.limit(), 5);
  // A failure breaks the streak.
  for (int i = 0; i < 49; ++i) l.OnSuccess();
  l.OnFailure();
  l.OnSuccess();
  EXPECT_EQ(l.limit(), 5);
  for (int i = 0; i < 49; ++i) l.OnSuccess();
  EXPECT_EQ(l.limit(), 6);
  // Never above the maximum.
  for (int i = 0; i < 50 * 10; ++i) l.OnSuccess();
  EXPECT_EQ(l.limit(), 8);
}

TEST(AdaptiveLimitTest, ThrottleResetsTheStreakAndNeverAdds) {
  AdaptiveLimit l(8, true);
  l.OnThrottled();  // 4
  for (int i = 0; i < 49; ++i) l.OnSuccess();
  l.OnThrottled();  // 2, streak gone
  EXPECT_EQ(l.limit(), 2);
  l.OnSuccess();
  EXPECT_EQ(l.limit(), 2);
}

TEST(AdaptiveLimitTest, DisabledStaysAtMaximum) {
  AdaptiveLimit l(6, false);
  l.OnThrottled();
  EXPECT_EQ(l.limit(), 6);
  EXPECT_EQ(AdaptiveLimit(0, true).limit(), 1) << "a limit is at least one";
}

}  // namespace
}  // namespace snowcar::servicenow
