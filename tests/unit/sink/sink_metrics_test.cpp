// SPDX-License-Identifier: Apache-2.0
// SinkMetrics::Write (src/sink/lanes/sink_metrics.cpp): what a scrape of the sink's families shows.
#include "sink/lanes/sink_metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace snowcar::sink {
namespace {

using ::testing::HasSubstr;

// A partition's counters exist at 0 as soon as it has a lane: Prometheus's increase() and
// rate() cannot see the event that creates a series, so a first dead-lettered command would
// otherwise never show (and dashboards stay empty until something happens).
TEST(SinkMetricsTest, PartitionCountersStartAtZeroForEveryLane) {
  SinkMetrics metrics;
  std::string before;
  metrics.Write(before, 0, 0,
                {{.topic = "cmds", .partition = 0}, {.topic = "cmds", .partition = 1}});
  EXPECT_THAT(
      before,
      HasSubstr("snowcar_sink_partition_dlq_records_total{topic=\"cmds\",partition=\"0\"} 0\n"));
  EXPECT_THAT(
      before,
      HasSubstr("snowcar_sink_partition_dlq_records_total{topic=\"cmds\",partition=\"1\"} 0\n"));
  EXPECT_THAT(
      before,
      HasSubstr("snowcar_sink_partition_records_total{topic=\"cmds\",partition=\"1\"} 0\n"));

  metrics.CountDlq({"cmds", 1});
  std::string after;
  metrics.Write(after, 0, 0, {{.topic = "cmds", .partition = 1}});
  EXPECT_THAT(
      after,
      HasSubstr("snowcar_sink_partition_dlq_records_total{topic=\"cmds\",partition=\"1\"} 1\n"));
}

}  // namespace
}  // namespace snowcar::sink
