// SPDX-License-Identifier: Apache-2.0
// The owner's side of a table's handover: writes the table's state to the changelog
// `<group>.state` (key: the alias) when it differs from what this replica last published,
// and tells whether the changelog holds it. Used by table_ownership.cpp on its own thread:
// a periodic round publishes without waiting, a release waits, and a release that finds the
// state unchanged since a periodic round still waits for that round's delivery report: the
// next owner reads the changelog as soon as the group assigns it the table, and one that
// read before the report restored an older state and emitted this owner's rows again.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "../snapshot/table_snapshot.h"
#include "snowcar/common/status.h"
#include "snowcar/kafka/producer.h"

namespace snowcar::source {

class SnapshotPublisher {
 public:
  // `max_bytes`: source.group's snapshot limit (EncodeSnapshot). `replica_id` is written into
  // every snapshot (who published it).
  SnapshotPublisher(std::shared_ptr<kafka::RecordProducer> producer,
                    boost::asio::any_io_executor executor, std::string topic,
                    std::string replica_id, size_t max_bytes);

  // `snapshot` was just restored from the changelog: it is there, nothing to write.
  void Restored(const std::string& alias, const TableSnapshot& snapshot);
  // Writes `snapshot` to `partition` unless it is the state last published (restored, or
  // written and acknowledged; one whose write failed is written again). Without `until`,
  // returns at once: true only when the changelog is known to hold it. With `until`, waits
  // for the report up to then: true when the changelog holds it, false (and logged) when
  // the write failed or its report is still out.
  bool Publish(const std::string& alias, int32_t partition, TableSnapshot snapshot,
               std::optional<std::chrono::steady_clock::time_point> until);
  // The table has a new owner, which publishes from here on.
  void Forget(const std::string& alias);

  int64_t published() const { return counts_->published.load(); }  // acknowledged writes
  int64_t failed() const { return counts_->failed.load(); }        // refused writes

 private:
  struct Counts {
    std::atomic<int64_t> published{0};
    std::atomic<int64_t> failed{0};
  };
  struct Last {
    TableSnapshot snapshot;
    std::shared_future<Status> delivered;  // none for a restored state
  };

  std::shared_ptr<kafka::RecordProducer> producer_;
  boost::asio::any_io_executor executor_;
  std::string topic_;
  std::string replica_id_;
  size_t max_bytes_;
  std::shared_ptr<Counts> counts_ = std::make_shared<Counts>();  // reports may outlive us
  std::map<std::string, Last> last_;                             // by alias
};

}  // namespace snowcar::source
