// SPDX-License-Identifier: Apache-2.0
// What the source costs the instance, counted where the instance counts it: the emulator's
// journal of requests, next to the sidecar's own snowcar_snow_requests_total.
#include <gmock/gmock.h>

#include <chrono>
#include <string>
#include <thread>

#include "snowcar/testbed/emulator/journal.h"
#include "source_harness.h"

namespace snowcar::source::it {
namespace {

class SourceRequests : public SourceTest {
 protected:
  // Requests the emulator received for `incident` after journal entry `after_seq`.
  size_t TableRequestsSince(uint64_t after_seq) {
    size_t n = 0;
    for (const auto& e : emu_->journal().Since(after_seq)) {
      if (e.target.starts_with("/api/now/table/incident?")) ++n;
    }
    return n;
  }
  uint64_t LastSeq() {
    const auto all = emu_->journal().All();
    return all.empty() ? 0 : all.back().seq;
  }
  // snowcar_snow_requests_total{table="inc",purpose="<purpose>"}, -1 when absent.
  int64_t RequestMetric(const std::string& purpose) {
    const std::string body = Get("/metrics").body;
    const std::string series =
        "snowcar_snow_requests_total{table=\"inc\",purpose=\"" + purpose + "\"} ";
    const size_t at = body.find(series);
    if (at == std::string::npos) return -1;
    return std::stoll(body.substr(at + series.size()));
  }
};

// A caught-up table whose overlap holds rows already read: one page request per poll (the
// re-read of the overlap runs up to the high-water mark and carries its own X-Total-Count),
// and no count request of its own.
TEST_F(SourceRequests, IdleTableCostsOneRequestPerPoll) {
  props_["snow.source.poll.interval.ms"] = "100";
  const int64_t now = NowS();
  LoadRows({now - 100, now - 100, now - 60});
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 3).size(), 3u);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("sweeps") >= 3; }, 20s));

  const int64_t sweeps_before = Counter("sweeps");
  const uint64_t mark = LastSeq();
  const int64_t counts_before = RequestMetric("count");
  const int64_t pages_before = RequestMetric("page");
  ASSERT_GE(counts_before, 0);
  ASSERT_GT(pages_before, 0);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("sweeps") >= sweeps_before + 20; }, 30s));
  const int64_t polls = Counter("sweeps") - sweeps_before;
  const size_t requests = TableRequestsSince(mark);

  // A poll in flight at either end of the window may fall on the other side of it.
  EXPECT_LE(static_cast<int64_t>(requests), polls + 1)
      << requests << " requests for " << polls << " idle polls";
  EXPECT_GE(static_cast<int64_t>(requests), polls - 1);
  EXPECT_EQ(RequestMetric("count"), counts_before);
  EXPECT_GE(RequestMetric("page") - pages_before, polls - 1);
  EXPECT_EQ(Counter("rows_emitted"), 3);
  StopGracefully();
}

// Adaptive polling (poll.interval.max.ms): each idle poll doubles the wait up to the ceiling,
// shown on the socket; rows arriving set it back to the poll interval.
TEST_F(SourceRequests, AdaptivePollingWaitsLongerWhileIdleAndSnapsBackOnNewRows) {
  props_["snow.source.poll.interval.ms"] = "100";
  props_["snow.table.inc.poll.interval.max.ms"] = "800";
  LoadRows({NowS() - 100});
  Start();
  ASSERT_EQ(WaitForRecords(topic_, 1).size(), 1u);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("poll_interval_ms") == 800; }, 20s));
  // At the ceiling the table is asked at most once per 800 ms (and a poll in flight).
  const uint64_t mark = LastSeq();
  const auto idle_from = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(2400ms);  // a measuring window, not synchronisation
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - idle_from).count();
  EXPECT_LE(static_cast<double>(TableRequestsSince(mark)), seconds / 0.8 + 1);
  // Rows keep arriving: the wait goes back to the poll interval.
  int inserted = 0;
  const bool snapped = testsupport::WaitFor(
      [&] {
        EXPECT_TRUE(emu_->store().Insert("incident", {{"short_description", "new"}}).ok());
        ++inserted;
        return Counter("poll_interval_ms") == 100;
      },
      20s, 50ms);
  EXPECT_TRUE(snapped) << "poll_interval_ms " << Counter("poll_interval_ms");
  EXPECT_EQ(WaitForRecords(topic_, 1 + inserted).size(), 1u + inserted);
  StopGracefully();
}

}  // namespace
}  // namespace snowcar::source::it
