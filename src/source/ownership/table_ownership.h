// SPDX-License-Identifier: Apache-2.0
// Source scale-out: replicas with the same `source.group.id` divide the configured tables
// through a Kafka consumer group on the coordination topic `<group>.tables` (one partition
// per table, table_ownership_map.h), and carry each table's state across replicas in the
// compacted changelog `<group>.state` (table_snapshot.h, state_changelog.h).
// docs/scale-out.md describes the design; docs/semantics.md the duplicate bounds.
//
// Threads: one thread of its own runs the group consumer (KafkaConsumer wants one thread),
// and everything that changes ownership happens on it, inside the consumer's rebalance
// callbacks: on assignment it restores each new table's state from the changelog into the
// local store and then starts the table's poller; on revoke it stops the pollers of the
// revoked tables (in-flight produces reported, acknowledged prefix committed) and publishes
// their final snapshot before the callback returns, so the next owner, which the group only
// assigns after this member gave the partitions up, restores exactly that state. Between
// polls it publishes the snapshot of every owned table whose state changed, at most every
// snapshot interval: that interval bounds the re-emission after a kill -9 of the owner. A
// table with deletes=reconcile also has its id set copied to the changelog after each
// finished sweep and on release (idset_changelog.h).
// The socket and metrics read the view from any thread under a mutex.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../poller/table_poller.h"
#include "../snapshot/state_changelog.h"
#include "../snapshot/table_snapshot.h"
#include "snapshot_publisher.h"
#include "snowcar/kafka/consumer.h"
#include "snowcar/kafka/producer.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"
#include "table_ownership_map.h"

namespace snowcar::api {
class HealthRegistry;
}

namespace snowcar::source {

struct OwnershipOptions {
  std::string group_id;    // source.group.id; empty: every replica polls every table
  std::string replica_id;  // source.group.replica.id (defaulted to host-pid by the caller)
  int64_t snapshot_interval_ms = 1000;             // source.group.snapshot.interval.ms
  size_t snapshot_max_bytes = size_t{900} * 1024;  // below Kafka's default 1 MB record limit
  // The `kafka.*` keys, prefix stripped: the group consumer, the restore reader.
  std::map<std::string, std::string> kafka_properties;
  // Longest wait for a revoked table's poller to drain, and for one table's restore read.
  std::chrono::milliseconds handoff_timeout{20000};
};

class TableOwnership {
 public:
  using PollerFactory = std::function<std::shared_ptr<TablePoller>(const TableSettings&)>;

  TableOwnership(OwnershipOptions options, const SourceSettings& settings, state::StateStore& store,
                 std::shared_ptr<kafka::RecordProducer> producer,
                 boost::asio::any_io_executor executor, api::HealthRegistry* health,
                 PollerFactory factory);
  ~TableOwnership();

  // Checks (or creates) both topics, joins the group and starts the thread. Fails naming the
  // topic when one is missing and cannot be created or has fewer partitions than tables.
  Status Start();
  // Leaves the group: the revoke path stops every owned poller and publishes its snapshot.
  void Stop(std::chrono::steady_clock::time_point deadline);
  // Joined the group and every owned table's poller finished starting.
  bool Started() const;

  // The pollers of the tables owned now (for /v1/source/tables and metrics).
  std::vector<std::shared_ptr<TablePoller>> Current() const;
  // Drops every poller's window; only once the pool is joined.
  void ReleaseWindows();

  boost::json::object Json() const;  // /v1/source/ownership
  void WriteMetrics(std::string& out) const;

 private:
  struct Owned {
    int32_t partition = -1;
    std::shared_ptr<TablePoller> poller;
    int64_t since_ms = 0;  // wall clock
  };
  struct Restore {
    std::string outcome;  // none, applied, local_newer, identity_mismatch, failed
    double seconds = 0;
    int64_t records_read = 0;
    int64_t at_ms = 0;
    std::string detail;
    // deletes=reconcile: what became of the id set (table_ownership_idset.cpp): "restored"
    // (the copy the snapshot names), "baseline" (none could be read: the next sweep takes a
    // baseline), "kept" (the local set was kept: the local cursor is newer, or this replica
    // wrote or restored the copy the snapshot names); empty for other tables.
    std::string idset;
    uint64_t idset_ids = 0;
  };

  void Run();
  void OnAssigned(const std::vector<kafka::TopicPartition>& partitions);
  void OnRevoked(const std::vector<kafka::TopicPartition>& partitions, bool lost);
  void Acquire(const std::string& alias, int32_t partition);
  void Release(const std::string& alias, bool publish);
  Restore RestoreTable(const TableSettings& table, int32_t partition);
  // Publishes the table's state if it differs from what was last published. With `wait`,
  // returns once Kafka acknowledged it (or failed, or handoff_timeout passed): true when the
  // changelog now holds this state (acknowledged, or unchanged since an acknowledged one).
  bool PublishIfChanged(const std::string& alias, int32_t partition, bool wait);
  // table_ownership_idset.cpp: the reconciliation id set on the changelog (idset_changelog.h).
  // Writes a new copy when a sweep finished since the last one, or always with `releasing`.
  void PublishIdSet(const TableSettings& table, int32_t partition, bool releasing);
  // After the snapshot was applied: the id set it names replaces the local one, or the sweep
  // restarts as a baseline when it cannot be read.
  void RestoreIdSet(const TableSettings& table, int32_t partition, const TableSnapshot& snapshot,
                    Restore& restore);
  std::chrono::steady_clock::time_point StopBy() const;
  const TableSettings* Table(const std::string& alias) const;

  OwnershipOptions options_;
  const SourceSettings& settings_;
  state::StateStore& store_;
  std::shared_ptr<kafka::RecordProducer> producer_;
  boost::asio::any_io_executor executor_;
  api::HealthRegistry* health_;
  PollerFactory factory_;
  TablePartitionMap map_;
  std::string tables_topic_;
  std::string state_topic_;

  std::unique_ptr<StateChangelog> changelog_;
  std::unique_ptr<kafka::KafkaConsumer> consumer_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> joined_{false};
  std::atomic<int64_t> stop_deadline_ns_{0};

  // Owner thread only.
  SnapshotPublisher publisher_;
  std::chrono::steady_clock::time_point last_publish_round_{};
  // By alias: the sweep count at which a copy of the id set failed; not tried again before
  // the next sweep finishes.
  std::map<std::string, uint64_t> idset_failed_at_sweep_;

  mutable std::mutex mu_;  // guards what the views read
  std::map<std::string, Owned> owned_;
  std::vector<std::shared_ptr<TablePoller>> retired_;  // stopped; windows released at the end
  std::map<std::string, Restore> restores_;            // the last restore of each table
  std::string restoring_;                              // the table being restored now
  int64_t restoring_read_ = 0;
  int64_t acquired_ = 0;
  int64_t released_ = 0;
  int64_t lost_ = 0;
  std::atomic<int64_t> idset_copies_published_{0};
  std::atomic<int64_t> idset_copies_failed_{0};
};

}  // namespace snowcar::source
