// SPDX-License-Identifier: Apache-2.0
// Source crashes: kill -9 and SIGTERM at random moments while the instance keeps writing.
#include <signal.h>

#include <algorithm>
#include <random>

#include "scenarios.h"
#include "source_rig.h"

namespace snowcar::fault {

std::vector<Row> SourceKillNine(const RunOptions& options) {
  Row row;
  row.scenario = std::string("source kill -9 at random points, writer at ") +
                 (options.long_run ? "20" : "60") + " rows/s";
  row.rounds = options.long_run ? 200 : 5;
  SourceRig rig(300);
  std::mt19937 rng(options.seed);
  // Duplicates a crash causes show up when the next run re-reads: count them per restart.
  std::vector<size_t> per_restart;
  size_t so_far = 0;
  // The long run writes slower, or hundreds of rounds would pile up a backlog the final run
  // could not read in time.
  if (Status s = rig.StartWriter(options.long_run ? 20 : 60); !s.ok()) {
    row.Fail(s.ToString());
    return {row};
  }
  for (int round = 0; round < row.rounds; ++round) {
    if (!rig.sidecar().Start(/*wait_ready=*/false)) {
      row.Fail("round " + std::to_string(round) + ": " + rig.sidecar().last_error());
      return {row};
    }
    // From before the first delivery report to well into the run.
    PauseForFault(std::chrono::milliseconds(200 + rng() % 900));
    rig.sidecar().Kill9();
    ++row.faults;
    const size_t dups = CountDuplicates(ReadSourceTopic(rig.broker().bootstrap(), rig.topic()));
    per_restart.push_back(dups >= so_far ? dups - so_far : 0);
    so_far = std::max(so_far, dups);
  }
  if (Status s = rig.StopWriter(); !s.ok()) row.Fail(s.ToString());
  if (!rig.sidecar().Start()) {
    row.Fail("final run: " + rig.sidecar().last_error());
    return {row};
  }
  rig.Settle(row, 180s);
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
  return {row};
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
