// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/time.h"

#include <gtest/gtest.h>

namespace snowcar {
namespace {

TEST(SnowTimestampTest, ParsesKnownInstants) {
  EXPECT_EQ(*ParseSnowTimestamp("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(*ParseSnowTimestamp("2026-12-02 08:29:17"), 1796200157);
  EXPECT_EQ(*ParseSnowTimestamp("2000-02-29 23:59:59"), 951868799);
  EXPECT_EQ(*ParseSnowTimestamp("1969-12-31 23:59:59"), -1);
}

TEST(SnowTimestampTest, RoundTripsAcrossCenturiesAndLeapDays) {
  for (int64_t t = -2208988800LL; t < 4102444800LL; t += 86399 * 37 + 13) {
    const std::string text = FormatSnowTimestamp(t);
    auto back = ParseSnowTimestamp(text);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().ToString();
    EXPECT_EQ(*back, t) << text;
  }
}

TEST(SnowTimestampTest, RejectsMalformedTextNamingIt) {
  for (const char* bad : {"", "2026-12-02", "2026-12-02T08:29:17", "2026-13-01 00:00:00",
                          "2026-02-29 00:00:00", "2026-12-02 24:00:00", "2026-12-02 08:60:00",
                          "2026-12-02 08:29:17Z", "20x6-12-02 08:29:17", "UNKNOWN"}) {
    auto r = ParseSnowTimestamp(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(std::string("'") + bad + "'"), std::string::npos)
        << r.status().message();
  }
}

TEST(SnowTimestampTest, Iso8601Millis) {
  EXPECT_EQ(FormatIso8601Millis(1796200157123), "2026-12-02T08:29:17.123Z");
  EXPECT_EQ(FormatIso8601Millis(-1), "1969-12-31T23:59:59.999Z");
}

TEST(SystemClockTest, IsCloseToTimeOfDay) {
  const int64_t now = SystemClock::Instance().NowSeconds();
  EXPECT_GT(now, *ParseSnowTimestamp("2024-01-01 00:00:00"));
}

}  // namespace
}  // namespace snowcar
