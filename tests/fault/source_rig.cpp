// SPDX-License-Identifier: Apache-2.0
#include "source_rig.h"

#include <algorithm>

#include "support/source_sidecar_config.h"
#include "support/wait.h"

namespace snowcar::fault {

SourceRig::SourceRig(int backlog, std::vector<std::string> emulate_args, int partitions) {
  topic_ = Unique("src-inc");
  emulate_args.insert(emulate_args.begin(), {"--tables", "incident:" + std::to_string(backlog)});
  emulator_ = std::make_unique<Emulator>(emulate_args);
  broker_ = std::make_unique<Broker>(topic_ + ":" + std::to_string(partitions));
  auto config =
      testsupport::SourceSidecarConfig(dir_, emulator_->url(), topic_, broker_->bootstrap());
  config["snow.source.poll.interval.ms"] = "100";
  config["snow.source.batch.size"] = std::to_string(kBatch);
  sidecar_ = std::make_unique<Sidecar>(dir_.path().string(), std::move(config));
}

Status SourceRig::StartWriter(int rows_per_second) {
  return emulator_->Control("writer/start",
                            R"({"tables":["incident"],"rows_per_second":)" +
                                std::to_string(rows_per_second) +
                                R"(,"update_share":0.5,"burst_rows":30,"burst_interval_ms":700})");
}

Status SourceRig::StopWriter() { return emulator_->Control("writer/stop", "{}"); }

void SourceRig::Settle(Row& row, std::chrono::milliseconds timeout) {
  const auto want = RowVersions(emulator_->Snapshot("incident"));
  std::vector<SourceRecord> records;
  int64_t evicted = 0;
  std::string where;
  testsupport::WaitFor(
      [&] {
        // First offsets before the records: a record dropped between the two reads shows up
        // as missing, but then the next pass sees the first offset moved.
        evicted = Evicted(&where);
        records = ReadSourceTopic(broker_->bootstrap(), topic_);
        return evicted != 0 || CountMissing(want, records) == 0;
      },
      timeout, 250ms);
  row.in = static_cast<int64_t>(want.size());
  row.out = static_cast<int64_t>(records.size());
  row.lost = static_cast<int64_t>(CountMissing(want, records));
  row.duplicated = static_cast<int64_t>(CountDuplicates(records));
  broker_copies_ = static_cast<int64_t>(CountBrokerCopies(records));
  // Checked once more after the last read: the verdict must not rest on a stale answer.
  evicted = Evicted(&where);
  if (evicted > 0) {
    row.Evicted(evicted, where);
  } else if (evicted < 0) {
    row.Fail("could not read the topic's first offsets, so eviction cannot be ruled out");
  }
}

int64_t SourceRig::Evicted(std::string* where) {
  if (!offsets_) {
    auto reader = broker::LogStartReader::Create(broker_->bootstrap());
    if (!reader.ok()) return -1;
    offsets_ = std::move(reader).value();
  }
  auto extents = offsets_->Read(topic_, 10s);
  if (!extents.ok()) return -1;
  if (where != nullptr) {
    where->clear();
    for (const auto& e : *extents) {
      if (e.log_start == 0) continue;
      *where += (where->empty() ? "" : ", ") + ("partition " + std::to_string(e.partition) +
                                                " starts at " + std::to_string(e.log_start));
    }
  }
  return broker::DroppedOffsets(*extents);
}

int64_t SourceRig::FullestPartition() {
  if (Evicted() < 0 || !offsets_) return -1;
  auto extents = offsets_->Read(topic_, 10s);
  if (!extents.ok()) return -1;
  int64_t most = 0;
  for (const auto& e : *extents) most = std::max(most, e.log_end - e.log_start);
  return most;
}

}  // namespace snowcar::fault
