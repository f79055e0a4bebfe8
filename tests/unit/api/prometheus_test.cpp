// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/prometheus.h"

#include <gtest/gtest.h>

#include <limits>

namespace snowcar::api {
namespace {

TEST(PrometheusTest, WritesFamilyHeaderAndSamples) {
  std::string out;
  WriteMetricFamily(out, "snowcar_x_total", "counter", "Things counted");
  WriteSample(out, "snowcar_x_total", "table=\"incident\"", int64_t{42});
  WriteSample(out, "snowcar_x_total", "", int64_t{-1});
  EXPECT_EQ(out,
            "# HELP snowcar_x_total Things counted\n"
            "# TYPE snowcar_x_total counter\n"
            "snowcar_x_total{table=\"incident\"} 42\n"
            "snowcar_x_total -1\n");
}

TEST(PrometheusTest, DoublesReadBackExactlyAndSpecialValuesUseTheFormatsNames) {
  std::string out;
  WriteSample(out, "a", "", 0.25);
  WriteSample(out, "b", "", 1.0 / 3.0);
  WriteSample(out, "c", "", std::numeric_limits<double>::infinity());
  WriteSample(out, "d", "", std::numeric_limits<double>::quiet_NaN());
  EXPECT_NE(out.find("a 0.25\n"), std::string::npos) << out;
  const size_t b = out.find("b ");
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(std::stod(out.substr(b + 2)), 1.0 / 3.0);
  EXPECT_NE(out.find("c +Inf\n"), std::string::npos) << out;
  EXPECT_NE(out.find("d NaN\n"), std::string::npos) << out;
}

TEST(PrometheusTest, EscapesLabelValues) {
  EXPECT_EQ(EscapeLabelValue("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

// Buckets are cumulative, in bound order, then +Inf (every observation), sum and count; an
// observation past the last bound is only in +Inf.
TEST(PrometheusTest, HistogramBucketsAreCumulativeWithInfSumAndCount) {
  LatencyHistogram h;
  h.Observe(0.0005);  // first bucket
  h.Observe(0.003);   // le=0.005
  h.Observe(0.003);
  h.Observe(120);  // beyond 60 s
  std::string out;
  WriteHistogram(out, "snowcar_t_seconds", "op=\"get\"", h);
  EXPECT_NE(out.find("snowcar_t_seconds_bucket{op=\"get\",le=\"0.001\"} 1\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("snowcar_t_seconds_bucket{op=\"get\",le=\"0.0025\"} 1\n"), std::string::npos);
  EXPECT_NE(out.find("snowcar_t_seconds_bucket{op=\"get\",le=\"0.005\"} 3\n"), std::string::npos);
  EXPECT_NE(out.find("snowcar_t_seconds_bucket{op=\"get\",le=\"60\"} 3\n"), std::string::npos);
  EXPECT_NE(out.find("snowcar_t_seconds_bucket{op=\"get\",le=\"+Inf\"} 4\n"), std::string::npos);
  EXPECT_NE(out.find("snowcar_t_seconds_sum{op=\"get\"} 120.0065\n"), std::string::npos) << out;
  EXPECT_NE(out.find("snowcar_t_seconds_count{op=\"get\"} 4\n"), std::string::npos);
  // Bounds appear in increasing order, each once.
  EXPECT_LT(out.find("le=\"0.001\""), out.find("le=\"0.0025\""));
  EXPECT_LT(out.find("le=\"60\""), out.find("le=\"+Inf\""));
}

}  // namespace
}  // namespace snowcar::api
