// SPDX-License-Identifier: Apache-2.0
// A source under test: `snowcar emulate` with a backlog of incident rows and a writer, a
// `snowcar broker` with the table's topic, and the sidecar polling one table into it.
#pragma once

#include <memory>
#include <string>

#include "procs.h"
#include "report.h"
#include "snowcar/testbed/broker/log_start.h"
#include "support/temp_dir.h"

namespace snowcar::fault {

class SourceRig {
 public:
  static constexpr int kBatch = 20;  // snow.source.batch.size: the kill -9 bound per crash

  static constexpr int kPartitions = 4;

  // `backlog` generated rows; extra emulator arguments (e.g. OAuth client) in `emulate_args`.
  // `partitions` of the topic: the embedded broker keeps 5 MiB per partition and drops the
  // oldest records past that, so a scenario that writes more spreads it over more partitions.
  explicit SourceRig(int backlog, std::vector<std::string> emulate_args = {},
                     int partitions = kPartitions);
  Emulator& emulator() { return *emulator_; }
  Broker& broker() { return *broker_; }
  Sidecar& sidecar() { return *sidecar_; }
  const std::string& topic() const { return topic_; }
  const testsupport::TempDir& dir() const { return dir_; }

  // The emulator's writer: other users creating and updating rows while the source reads.
  Status StartWriter(int rows_per_second = 60);
  Status StopWriter();

  // Waits until every current row version is in the topic; fills in, out, lost and
  // duplicated of `row` (lost counts versions still missing at the deadline). When the broker
  // dropped records of the topic, stops waiting and marks the row evicted (VOID) instead:
  // what is missing then may have been delivered and dropped.
  void Settle(Row& row, std::chrono::milliseconds timeout = 60s);
  // Of the duplicates the last Settle counted, those the broker wrote twice from one produce
  // call (CountBrokerCopies).
  int64_t broker_copies() const { return broker_copies_; }
  // Offsets the broker dropped from the topic so far (the sum of the partitions' first
  // offsets), and which partitions in `where`; -1 when the broker cannot be asked.
  int64_t Evicted(std::string* where = nullptr);
  // The most records any one partition of the topic holds (to report the headroom).
  int64_t FullestPartition();
  // Source table view (/v1/source/tables/inc).
  boost::json::object Table() { return sidecar_->Get("/v1/source/tables/inc"); }

 private:
  testsupport::TempDir dir_{"snowcar-fault"};
  std::string topic_;
  std::unique_ptr<Emulator> emulator_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<Sidecar> sidecar_;
  std::unique_ptr<broker::LogStartReader> offsets_;
  int64_t broker_copies_ = 0;
};

}  // namespace snowcar::fault
