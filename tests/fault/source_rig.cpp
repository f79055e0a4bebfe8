// SPDX-License-Identifier: Apache-2.0
#include "source_rig.h"

#include "support/wait.h"

namespace snowcar::fault {

SourceRig::SourceRig(int backlog, std::vector<std::string> emulate_args) {
  topic_ = Unique("src-inc");
  emulate_args.insert(emulate_args.begin(), {"--tables", "incident:" + std::to_string(backlog)});
  emulator_ = std::make_unique<Emulator>(emulate_args);
  broker_ = std::make_unique<Broker>(topic_ + ":4");
  sidecar_ = std::make_unique<Sidecar>(dir_.path().string(),
                                       std::map<std::string, std::string>{
                                           {"state.dir", dir_.File("state")},
                                           {"socket.path", dir_.File("run/snowcar.sock")},
                                           {"source.enabled", "true"},
                                           {"sink.enabled", "false"},
                                           {"threads", "2"},
                                           {"log.format", "json"},
                                           {"snow.url", emulator_->url()},
                                           {"snow.auth.username", "admin"},
                                           {"snow.auth.password", "admin-emulator"},
                                           {"snow.retry.initial.backoff.ms", "50"},
                                           {"snow.retry.max.backoff.ms", "400"},
                                           {"snow.tables", "inc"},
                                           {"snow.table.inc.name", "incident"},
                                           {"snow.table.inc.topic", topic_},
                                           {"snow.source.poll.interval.ms", "100"},
                                           {"snow.source.batch.size", std::to_string(kBatch)},
                                           {"kafka.bootstrap.servers", broker_->bootstrap()},
                                       });
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
  testsupport::WaitFor(
      [&] {
        records = ReadSourceTopic(broker_->bootstrap(), topic_);
        return CountMissing(want, records) == 0;
      },
      timeout, 250ms);
  row.in = static_cast<int64_t>(want.size());
  row.out = static_cast<int64_t>(records.size());
  row.lost = static_cast<int64_t>(CountMissing(want, records));
  row.duplicated = static_cast<int64_t>(CountDuplicates(records));
}

}  // namespace snowcar::fault
