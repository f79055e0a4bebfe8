// SPDX-License-Identifier: Apache-2.0
// Source crashes: kill -9 and SIGTERM at random moments while the instance keeps writing.
#include <signal.h>

#include <algorithm>
#include <random>

#include "scenarios.h"
#include "source_rig.h"

namespace snowcar::fault {
namespace {

struct KillPlan {
  std::string scenario;
  int rounds = 0;
  int rows_per_second = 60;
  int backlog = 300;  // rows generated before the first round
  // The topic's partitions: the embedded broker drops a partition's oldest records past
  // 5 MiB (docs/embedded-broker.md), and a run that writes more must spread it thinner or the
  // check is void. A source record is about 1.4 KiB on the wire.
  int partitions = SourceRig::kPartitions;
  // How long the sidecar stays down after each kill -9, drawn from [min, min + span): with a
  // span, the writer piles up a backlog that the next run starts reading and is killed in.
  int down_min_ms = 0;
  int down_span_ms = 0;
  std::chrono::milliseconds settle{180s};
};

// Start, run for a random moment, kill -9, stay down for a while; then a final run that must
// deliver every row version, with at most one page repeated per crash.
Row KillRounds(const KillPlan& plan, unsigned seed) {
  Row row;
  row.scenario = plan.scenario;
  row.rounds = plan.rounds;
  SourceRig rig(plan.backlog, {}, plan.partitions);
  std::mt19937 rng(seed);
  // Duplicates a crash causes show up when the next run re-reads: count them per restart.
  std::vector<size_t> per_restart;
  size_t so_far = 0;
  size_t largest_backlog = 0;
  if (Status s = rig.StartWriter(plan.rows_per_second); !s.ok()) {
    row.Fail(s.ToString());
    return row;
  }
  for (int round = 0; round < row.rounds; ++round) {
    if (!rig.sidecar().Start(/*wait_ready=*/false)) {
      row.Fail("round " + std::to_string(round) + ": " + rig.sidecar().last_error());
      return row;
    }
    // From before the first delivery report to well into the run.
    PauseForFault(std::chrono::milliseconds(200 + rng() % 900));
    rig.sidecar().Kill9();
    ++row.faults;
    if (plan.down_span_ms > 0) {
      PauseForFault(std::chrono::milliseconds(plan.down_min_ms + rng() % plan.down_span_ms));
    }
    const auto records = ReadSourceTopic(rig.broker().bootstrap(), rig.topic());
    const size_t dups = CountDuplicates(records);
    per_restart.push_back(dups >= so_far ? dups - so_far : 0);
    so_far = std::max(so_far, dups);
    if (plan.down_span_ms > 0) {
      // What the next run finds waiting: the versions the topic does not hold yet.
      largest_backlog = std::max(
          largest_backlog, CountMissing(RowVersions(rig.emulator().Snapshot("incident")), records));
    }
  }
  if (Status s = rig.StopWriter(); !s.ok()) row.Fail(s.ToString());
  if (!rig.sidecar().Start()) {
    row.Fail("final run: " + rig.sidecar().last_error());
    return row;
  }
  rig.Settle(row, plan.settle);
  const auto final_dups = static_cast<size_t>(row.duplicated);
  per_restart.push_back(final_dups >= so_far ? final_dups - so_far : 0);
  const auto status = rig.sidecar().Terminate();
  if (!status.ok()) row.Fail("final SIGTERM: " + status.ToString());
  const size_t worst = *std::max_element(per_restart.begin(), per_restart.end());
  // One page per table per crash (docs/semantics.md). A restart can also repeat what an
  // earlier, very short run died before re-emitting, hence twice the page for one restart.
  row.bound = static_cast<int64_t>(SourceRig::kBatch) * row.rounds;
  row.Note("bound = batch.size " + std::to_string(SourceRig::kBatch) + " x " +
           std::to_string(row.rounds) + " crashes; worst restart " + std::to_string(worst) +
           " (<= " + std::to_string(2 * SourceRig::kBatch) + ")");
  if (worst > 2 * static_cast<size_t>(SourceRig::kBatch))
    row.Fail("one restart repeated more than two pages");
  if (plan.down_span_ms > 0) {
    row.Note("largest backlog at a restart " + std::to_string(largest_backlog) + " versions");
  }
  row.Note(std::to_string(plan.partitions) + " partitions, the fullest holding " +
           std::to_string(rig.FullestPartition()) + " records");
  return row;
}

}  // namespace

std::vector<Row> SourceKillNine(const RunOptions& options) {
  KillPlan plan;
  // The long run writes slower, or hundreds of rounds would pile up a backlog the final run
  // could not read in time. Its ~21 000 versions would pass the broker's cap on 4 partitions.
  plan.rows_per_second = options.long_run ? 20 : 60;
  plan.scenario = "source kill -9 at random points, writer at " +
                  std::to_string(plan.rows_per_second) + " rows/s";
  plan.rounds = options.long_run ? 200 : 5;
  plan.partitions = options.long_run ? 16 : SourceRig::kPartitions;
  return {KillRounds(plan, options.seed)};
}

std::vector<Row> SourceBacklog(const RunOptions& options) {
  KillPlan plan;
  plan.rows_per_second = 60;
  plan.rounds = options.long_run ? 80 : 20;
  plan.down_min_ms = 500;
  plan.down_span_ms = 2000;
  plan.partitions = options.long_run ? 16 : 8;
  plan.scenario = "source kill -9 while a backlog builds (down 0.5-2.5 s per round), writer at " +
                  std::to_string(plan.rows_per_second) + " rows/s";
  return {KillRounds(plan, options.seed + 2)};
}

std::vector<Row> SourceSigterm(const RunOptions& options) {
  Row row;
  row.scenario = "source SIGTERM at random points, writer at 60 rows/s";
  row.rounds = options.long_run ? 40 : 4;
  row.bound = 0;
  SourceRig rig(1500);
  if (Status s = rig.StartWriter(); !s.ok()) {
    row.Fail(s.ToString());
    return {row};
  }
  std::mt19937 rng(options.seed + 1);
  for (int round = 0; round < row.rounds; ++round) {
    if (!rig.sidecar().Start(/*wait_ready=*/false)) {
      row.Fail("round " + std::to_string(round) + ": " + rig.sidecar().last_error());
      return {row};
    }
    PauseForFault(std::chrono::milliseconds(200 + rng() % 1300));
    const auto status = rig.sidecar().Terminate();
    ++row.faults;
    if (!status.ok()) row.Fail("round " + std::to_string(round) + " " + status.ToString());
  }
  (void)rig.StopWriter();
  if (!rig.sidecar().Start()) {
    row.Fail("final run: " + rig.sidecar().last_error());
    return {row};
  }
  rig.Settle(row);
  const auto status = rig.sidecar().Terminate();
  if (!status.ok()) row.Fail("final SIGTERM: " + status.ToString());
  row.Note("every stop exited 0; graceful stops repeat nothing");
  return {row};
}

}  // namespace snowcar::fault
