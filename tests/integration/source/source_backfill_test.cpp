// SPDX-License-Identifier: Apache-2.0
// The parallel backfill against real processes: the emulator (with latency, so the backfill
// lasts long enough to be interrupted), the embedded broker and `snowcar run`. A backlog cut
// into four ranges survives graceful restarts and kill -9 without losing a row, and rows
// updated while it runs keep their versions in order on the topic.
#include <gmock/gmock.h>

#include <algorithm>
#include <map>
#include <random>

#include "snowcar/common/time.h"
#include "snowcar/testbed/emulator/faults.h"
#include "source_harness.h"

namespace snowcar::source::it {
namespace {

class SourceBackfill : public SourceTest {
 protected:
  void SetUpBacklog(int rows, int64_t latency_ms) {
    props_["snow.source.batch.size"] = "50";
    props_["snow.source.backfill.parallelism"] = "4";
    props_["snow.source.poll.interval.ms"] = "200";
    ASSERT_TRUE(broker().CreateTopic(topic_, 4).ok());
    // Spread over two days that end well before the parallel part's end (HI - 60 s).
    std::vector<int64_t> seconds;
    const int64_t start = NowS() - 2 * 86400;
    for (int i = 0; i < rows; ++i) seconds.push_back(start + i * (2 * 86400 - 600) / rows);
    ids_ = LoadRows(seconds);
    emulator::LatencyKnob latency;
    latency.fixed_ms = latency_ms;
    latency.scope.path_prefix = "/api/now/table/incident";
    emu_->faults().SetLatency(latency);
  }

  // Per key, in offset order, sys_mod_count never goes down. Every key lives on one
  // partition, so offset order is the order a consumer sees. Returns the keys that break it.
  static std::vector<std::string> KeysOutOfOrder(std::vector<Consumed> records) {
    std::sort(records.begin(), records.end(), [](const Consumed& a, const Consumed& b) {
      return a.partition != b.partition ? a.partition < b.partition : a.offset < b.offset;
    });
    std::map<std::string, int> last;
    std::map<std::string, int> partition;
    std::vector<std::string> bad;
    for (const Consumed& r : records) {
      const int mod = std::stoi(r.mod());
      auto [it, fresh] = last.try_emplace(r.key, mod);
      auto [pit, pfresh] = partition.try_emplace(r.key, r.partition);
      if (!pfresh && pit->second != r.partition) bad.push_back(r.key + " (two partitions)");
      if (!fresh) {
        if (mod < it->second) bad.push_back(r.key);
        it->second = std::max(it->second, mod);
      }
    }
    return bad;
  }

  bool AllLoadedRowsIn(const std::vector<Consumed>& records) const {
    std::set<std::string> keys;
    for (const Consumed& r : records) keys.insert(r.key);
    return std::all_of(ids_.begin(), ids_.end(), [&](const auto& id) { return keys.count(id); });
  }

  // Reads the topic until every loaded row is in it; `records` holds the last read.
  bool WaitForAllLoadedRows(std::vector<Consumed>* records) {
    return testsupport::WaitFor(
        [&] {
          *records = ReadTopic(topic_);
          return AllLoadedRowsIn(*records);
        },
        120s, 250ms);
  }

  std::string JournalText() {
    std::string out;
    for (const auto& e : emu_->journal().All()) {
      out += e.method + " " + e.target + " " + std::to_string(e.status) + "\n";
    }
    return out;
  }

  std::vector<std::string> ids_;
};

TEST_F(SourceBackfill, GracefulRestartsResumeEveryRangeWithoutGapsOrRepeats) {
  SetUpBacklog(4000, 30);
  std::string logs;
  // Two stops in the middle of the backfill, then a run to the end.
  for (int64_t stop_at : {600, 2000}) {
    Start();
    ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("rows_emitted") >= stop_at; }, 90s, 50ms))
        << child_->Stderr() << JournalText();
    StopGracefully();
    logs += last_stderr_;
  }
  Start();
  std::vector<Consumed> records;
  ASSERT_TRUE(WaitForAllLoadedRows(&records));
  StopGracefully();
  logs += last_stderr_;
  EXPECT_THAT(logs, testing::HasSubstr("source.backfill_split"));
  EXPECT_THAT(logs, testing::HasSubstr("source.backfill_resumed"));
  EXPECT_THAT(logs, testing::HasSubstr("source.backfill_ranges_done"));
  // A graceful stop commits everything acknowledged and each range resumes exactly there.
  EXPECT_EQ(Duplicates(records), 0u);
  EXPECT_EQ(records.size(), ids_.size());
  EXPECT_THAT(KeysOutOfOrder(records), testing::IsEmpty());
}

TEST_F(SourceBackfill, KillNineWhileRowsAreUpdatedLosesNothingAndKeepsEachKeysOrder) {
  SetUpBacklog(6000, 40);
  // Updates (mostly of the backlog's rows) and creates while the backfill runs and restarts:
  // an updated row's new version is stamped now, after the parallel part's end.
  emulator::RowGeneratorOptions generator;
  generator.tables = {"incident"};
  generator.rows_per_second = 80;
  generator.update_share = 0.8;
  ASSERT_TRUE(emu_->row_generator().Start(generator).ok());
  std::mt19937 rng(20261203);
  std::string logs;
  constexpr int kRounds = 6;
  for (int round = 0; round < kRounds; ++round) {
    Start(/*wait_ready=*/false);
    ASSERT_NE(child_, nullptr);
    // Not a synchronisation: the point is to die at an arbitrary moment of the backfill.
    std::this_thread::sleep_for(std::chrono::milliseconds(700 + rng() % 1500));
    logs += child_->Stderr();
    Kill9();
  }
  const size_t before_final_run = ReadTopic(topic_).size();
  Start();
  // Let the final run overlap the row generator a while, then stop it and wait for the end.
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("rows_emitted") >= 1000; }, 60s, 50ms));
  emu_->row_generator().Stop();
  std::vector<Consumed> records;
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return AllFinalVersionsIn(topic_, &records); }, 120s, 250ms))
      << "not every final row version reached Kafka";
  StopGracefully();
  logs += last_stderr_;
  EXPECT_THAT(logs, testing::HasSubstr("source.backfill_split"));
  EXPECT_THAT(logs, testing::HasSubstr("source.backfill_resumed"));
  EXPECT_TRUE(AllLoadedRowsIn(records));
  EXPECT_THAT(KeysOutOfOrder(records), testing::IsEmpty());
  const auto stats = emu_->row_generator().stats();
  std::printf(
      "[ figures  ] parallel backfill, kill -9 rounds=%d records=%zu (before the final run %zu) "
      "versions=%zu duplicates=%zu writer updated=%llu inserted=%llu\n",
      kRounds, records.size(), before_final_run, Versions(records).size(), Duplicates(records),
      static_cast<unsigned long long>(stats.updated),
      static_cast<unsigned long long>(stats.inserted));
  // Each crash repeats at most the table's produce window (one page), as with one sweep.
  EXPECT_LE(Duplicates(records), static_cast<size_t>(kRounds * 2 * 50));
}

// Typed values (json_typed) with the default parallelism: each range's pages take the typed
// path (the column types, the encoder) like the single sweep's, before and after a restart in
// the middle of the backfill (the types then come from the state store).
TEST_F(SourceBackfill, TypedRecordsThroughTheRangesAndARestartHalfWay) {
  SetUpBacklog(1500, 20);
  props_["snow.source.batch.size"] = "100";
  props_.erase("snow.source.backfill.parallelism");  // the default cuts it
  props_["snow.source.schema.mode"] = "typed";
  Start();
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("rows_emitted") >= 300; }, 60s, 50ms))
      << boost::json::serialize(Table()) << child_->Stderr();
  StopGracefully();
  std::string logs = last_stderr_;
  Start();
  std::vector<Consumed> records;
  ASSERT_TRUE(WaitForAllLoadedRows(&records)) << child_->Stderr();
  StopGracefully();
  logs += last_stderr_;
  EXPECT_THAT(logs, testing::HasSubstr("source.backfill_split"));
  EXPECT_THAT(logs, testing::HasSubstr("source.backfill_resumed"));
  std::set<std::string> keys;
  for (const Consumed& r : records) {
    keys.insert(r.key);
    // Typed: the count an integer, the timestamp an ISO-8601 instant; untyped both are strings.
    ASSERT_TRUE(r.value.contains("sys_mod_count") && r.value.at("sys_mod_count").is_int64())
        << r.key << ": " << boost::json::serialize(r.value);
    const auto& updated = r.value.at("sys_updated_on");
    ASSERT_TRUE(updated.is_string() && updated.as_string().ends_with("Z"))
        << r.key << ": " << boost::json::serialize(r.value);
  }
  EXPECT_EQ(keys.size(), ids_.size());
  EXPECT_EQ(records.size(), ids_.size()) << "a graceful restart repeats nothing";
}

TEST_F(SourceBackfill, AtTheInstancesLatencyTheRangesReadAtOnce) {
  // 200 ms a request against a few milliseconds to produce a 50-row page: the table sits idle
  // waiting for every page, so the backfill opens its ranges (backfill_concurrency.h). Every
  // request takes at least the latency to answer, so page requests that arrive within it of
  // each other were all out at once; one sweep never has two.
  constexpr int64_t kLatencyMs = 200;
  SetUpBacklog(3000, kLatencyMs);
  Start();
  std::vector<Consumed> records;
  ASSERT_TRUE(WaitForAllLoadedRows(&records));
  StopGracefully();
  EXPECT_THAT(last_stderr_, testing::HasSubstr("source.backfill_split"));
  std::vector<int64_t> pages;
  for (const auto& e : emu_->journal().All()) {
    const size_t at = e.target.find("sysparm_limit=50");
    const size_t end = at + std::string_view("sysparm_limit=50").size();
    if (e.method == "GET" && at != std::string::npos &&
        (end == e.target.size() || e.target[end] == '&')) {
      pages.push_back(e.time_ms);
    }
  }
  size_t most_at_once = 0;
  for (size_t i = 0; i < pages.size(); ++i) {
    size_t at_once = 0;
    for (size_t j = i; j < pages.size() && pages[j] < pages[i] + kLatencyMs / 2; ++j) ++at_once;
    most_at_once = std::max(most_at_once, at_once);
  }
  EXPECT_GE(most_at_once, 3U) << pages.size() << " page requests\n" << JournalText();
  // The cut's counts took the latency too: every range sends its first page at once, not one
  // more range per two pages that found the table idle (which took 2 latencies at least).
  ASSERT_GE(pages.size(), 4U);
  EXPECT_LT(pages[3] - pages[0], kLatencyMs) << JournalText();
  EXPECT_EQ(Duplicates(records), 0u);
}

}  // namespace
}  // namespace snowcar::source::it
