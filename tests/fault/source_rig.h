// SPDX-License-Identifier: Apache-2.0
// A source under test: `snowcar emulate` with a backlog of incident rows and a writer, a
// `snowcar broker` with the table's topic, and the sidecar polling one table into it.
#pragma once

#include <memory>
#include <string>

#include "procs.h"
#include "report.h"
#include "support/temp_dir.h"

namespace snowcar::fault {

class SourceRig {
 public:
  static constexpr int kBatch = 20;  // snow.source.batch.size: the kill -9 bound per crash

  // `backlog` generated rows; extra emulator arguments (e.g. OAuth client) in `emulate_args`.
  explicit SourceRig(int backlog, std::vector<std::string> emulate_args = {});
  Emulator& emulator() { return *emulator_; }
  Broker& broker() { return *broker_; }
  Sidecar& sidecar() { return *sidecar_; }
  const std::string& topic() const { return topic_; }
  const testsupport::TempDir& dir() const { return dir_; }

  // The emulator's writer: other users creating and updating rows while the source reads.
  Status StartWriter(int rows_per_second = 60);
  Status StopWriter();

  // Waits until every current row version is in the topic; fills in, out, lost and
  // duplicated of `row` (lost counts versions still missing at the deadline).
  void Settle(Row& row, std::chrono::milliseconds timeout = 60s);
  // Source table view (/v1/source/tables/inc).
  boost::json::object Table() { return sidecar_->Get("/v1/source/tables/inc"); }

 private:
  testsupport::TempDir dir_{"snowcar-fault"};
  std::string topic_;
  std::unique_ptr<Emulator> emulator_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<Sidecar> sidecar_;
};

}  // namespace snowcar::fault
