// SPDX-License-Identifier: Apache-2.0
// A poll-style Kafka consumer for the sink: a high-level (group) consumer with manual offset
// storage, pause/resume and rebalance callbacks, over librdkafka's C API.
//
// Threading: every method except Wake() and stats() must be called from ONE thread, the
// consumer thread the sink runs (it loops on Poll). Rebalance callbacks run on that thread
// inside Poll() (and once more inside Close()), so a listener may call StoreOffset, Pause, ...
// directly.
// librdkafka batch-consume APIs are not used: they misbehave around rebalances in 2.0.x.
//
// Offsets: enable.auto.offset.store=false is forced. The sink calls StoreOffset(tp, next)
// only for the contiguous prefix of completed records; enable.auto.commit (default on, every
// auto.commit.interval.ms) then commits only stored offsets. CommitSync commits them now.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"

namespace snowcar::kafka {

struct RebalanceListener {
  // Partitions newly assigned to this member (the whole assignment under the eager protocol,
  // the increment under cooperative-sticky). Lanes start from the committed offsets.
  std::function<void(const std::vector<TopicPartition>&)> on_assigned;
  // Partitions about to be taken away. When this returns, the consumer commits what was
  // stored for them and gives them up: finish or abandon their in-flight work first.
  std::function<void(const std::vector<TopicPartition>&)> on_revoked;
  // The member lost its partitions without a clean revoke (session timeout): offsets can no
  // longer be committed for them. Abandon their work.
  std::function<void(const std::vector<TopicPartition>&)> on_lost;
};

struct ConsumerOptions {
  // librdkafka properties: the `kafka.*` keys with the prefix stripped. group.id must be in
  // it (kafka.group.id). Producer-only properties are dropped with a log note.
  std::map<std::string, std::string> properties;
  std::vector<std::string> topics;
  // Forced: enable.auto.offset.store=false. Defaulted unless set:
  // partition.assignment.strategy=cooperative-sticky, auto.offset.reset=earliest.
  std::string client_id = "snowcar-sink";
  RebalanceListener listener;
  // How long a synchronous commit (CommitSync, the commit on revoke, hence also Close) waits
  // for the group coordinator. librdkafka's own synchronous commit waits until the session
  // times out (45 s by default) when the coordinator is unreachable, which would overrun any
  // shutdown budget.
  std::chrono::milliseconds commit_timeout{5000};
  // How long Close() tries to leave the group cleanly (revoke, commit, LeaveGroup) before it
  // drops the handle anyway; the group then notices the member gone at its session timeout.
  std::chrono::milliseconds close_timeout{10000};
};

class KafkaConsumer {
 public:
  // Creates the consumer and subscribes. kInvalidArgument names a refused property or a
  // missing group.id / bootstrap.servers / topic list; enable.auto.offset.store=true is
  // refused (the sink must decide which offsets are stored).
  static Result<std::unique_ptr<KafkaConsumer>> Create(ConsumerOptions options);
  // The property checks of Create (group.id, enable.auto.offset.store, what librdkafka would
  // refuse, bootstrap.servers) without creating a client: `snowcar config check`.
  static Status CheckProperties(const ConsumerOptions& options);
  ~KafkaConsumer();  // Close()

  // The next record, or nullopt when none arrived within `timeout` (or Wake() was called).
  // Consumer errors that are not fatal are logged and counted, not returned; a fatal error
  // returns a Status.
  Result<std::optional<InRecord>> Poll(std::chrono::milliseconds timeout);

  // Thread-safe: makes a Poll() blocked on another thread return early (nullopt). A Wake()
  // while no Poll() is blocked makes the next Poll() return at once. A no-op after Close().
  void Wake();

  // Pause drops what librdkafka fetched ahead for the partitions; Resume fetches again from
  // the record after the last one Poll returned, at once (it seeks there to wake the fetcher).
  // A pause ends with the assignment: a partition this member is handed (again) always
  // starts unpaused, whatever was asked for it before it was revoked.
  Status Pause(const std::vector<TopicPartition>& partitions);
  Status Resume(const std::vector<TopicPartition>& partitions);

  // Stores `next_offset` (the offset of the next record to read, i.e. last completed + 1) to be
  // committed for `tp`. Fails when the partition is not assigned any more.
  Status StoreOffset(const TopicPartition& tp, int64_t next_offset);
  // Commits stored offsets now and waits for the answer, at most commit_timeout
  // (kDeadlineExceeded then; the commit may still complete later).
  Status CommitSync();

  // Commits `offsets` as given, with their metadata, instead of the stored ones. `wait`: as
  // CommitSync, within commit_timeout (retried while a cooperative rebalance is in progress);
  // otherwise sent and not awaited (a later commit supersedes a lost one).
  Status CommitOffsets(const std::map<TopicPartition, OffsetAndMetadata>& offsets, bool wait);
  // The committed offsets of `partitions` with their metadata (offset -1001 when none).
  Result<std::map<TopicPartition, OffsetAndMetadata>> CommittedWithMetadata(
      const std::vector<TopicPartition>& partitions, std::chrono::milliseconds timeout);

  // The committed offsets of `partitions` as the group coordinator knows them (-1001 when
  // none), for the socket view.
  Result<std::map<TopicPartition, int64_t>> Committed(const std::vector<TopicPartition>& partitions,
                                                      std::chrono::milliseconds timeout);
  // The high watermark (offset after the newest record) of each of `partitions` as this
  // consumer last learnt it from a fetch answer, without asking the broker; partitions it has
  // not fetched from yet are left out. For the consumer lag metric.
  std::map<TopicPartition, int64_t> CachedHighWatermarks(
      const std::vector<TopicPartition>& partitions) const;
  std::vector<TopicPartition> Assignment() const;

  // Counters for the socket view and metrics; readable from any thread.
  struct Stats {
    int64_t consumed = 0;         // records returned by Poll
    int64_t errors = 0;           // non-fatal consumer errors logged and skipped
    int64_t assigned = 0;         // rebalance events that assigned partitions
    int64_t revoked = 0;          // rebalance events that revoked partitions (cleanly)
    int64_t lost = 0;             // rebalance events that lost partitions
    int64_t commit_failures = 0;  // commits (on revoke or CommitSync) that failed
  };
  Stats stats() const;

  // Leaves the group: revokes (listener runs), commits stored offsets, closes. Idempotent.
  // Bounded by close_timeout even when the coordinator is unreachable.
  // After Close, Poll returns kFailedPrecondition and the other calls fail or return empty.
  void Close();

  struct Impl;

 private:
  explicit KafkaConsumer(std::unique_ptr<Impl> impl);
  void SeekToPositions(const std::vector<TopicPartition>& partitions);
  std::unique_ptr<Impl> impl_;
};

}  // namespace snowcar::kafka
