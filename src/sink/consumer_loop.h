// SPDX-License-Identifier: Apache-2.0
// The sink's consumer thread: a dedicated std::thread (never a pool thread: Poll blocks) that
// owns the KafkaConsumer, hands each record to its partition's lane, and is the only place
// that touches the consumer (librdkafka's consumer API is single-threaded here).
//
// Lanes finish records on pool threads; they report "offset done" and "pause / resume me"
// through a small thread-safe event queue that this thread drains between polls (and wakes
// Poll for), so StoreOffset, Pause and Resume always run on the consumer thread.
//
// Offsets: only stored offsets get committed, by librdkafka's auto commit on its interval,
// and by the consumer itself when partitions are revoked or it closes. Under key ordering
// (`commit_metadata`) nothing is stored: lanes report progress (an offset and the metadata
// listing the records done above it) and this thread commits both itself, every
// `commit_interval`, on revoke and at the stop; and it seeds every new lane with the offset
// and metadata the group holds.
// Rebalance: revoked lanes stop taking records and withdraw every call of theirs not yet
// sent (a call waiting out a Retry-After ends at once, lane.h), then get a bounded wait
// (snow.sink.revoke.timeout.ms) for the calls already on the wire; whatever finished is
// stored before the revoke returns, so no write of a revoked partition is sent after the
// next owner has it. A record still in flight past the wait is abandoned WITHOUT storing its
// offset (the next owner applies it again; its unanswered call is the one write that may
// still land late). Lost partitions are abandoned at once.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lanes/lane_set.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/mutex.h"
#include "snowcar/kafka/consumer.h"

namespace snowcar::sink {

struct ConsumerLoopOptions {
  std::map<std::string, std::string> properties;  // the kafka.* keys, prefix stripped
  std::vector<std::string> topics;
  // How long a revoke waits for the lanes' calls on the wire (snow.sink.revoke.timeout.ms).
  std::chrono::milliseconds revoke_wait{60000};
  // How often the committed offsets shown on the socket are refreshed.
  std::chrono::milliseconds committed_refresh{1000};
  std::chrono::milliseconds poll_timeout{200};
  // Key ordering: commit progress with its metadata (see above), this often.
  bool commit_metadata = false;
  std::chrono::milliseconds commit_interval{5000};
};

class ConsumerLoop {
 public:
  using LaneFactory =
      std::function<std::shared_ptr<PartitionLane>(const kafka::TopicPartition&, LaneEvents)>;

  // `health` may be null.
  ConsumerLoop(ConsumerLoopOptions options, LaneFactory factory, api::HealthRegistry* health);
  ~ConsumerLoop();

  // Creates the consumer (subscribing) on the consumer thread and starts polling. Fails when
  // the consumer cannot be created (bad kafka.* property, no group.id).
  Status Start();
  // Stops polling, lets lanes finish their record until `deadline`, stores and commits what
  // finished, closes the consumer, joins the thread. Idempotent.
  void Stop(std::chrono::steady_clock::time_point deadline);

  bool subscribed() const { return subscribed_.load(); }
  const LaneSet& lanes() const { return lanes_; }

 private:
  struct Event {
    enum class Kind { kCompleted, kPause, kResume, kProgress } kind;
    uint64_t lane_serial;  // LaneSet's: the address of a freed lane may be a new lane's
    kafka::TopicPartition tp;
    int64_t offset = 0;
    std::string metadata;  // kProgress
  };
  // Key ordering: the progress not committed yet (`dirty`) or last committed, per partition.
  struct Progress {
    kafka::OffsetAndMetadata offset;
    bool dirty = false;
  };

  // The events of the lane created with `lane_serial`.
  LaneEvents MakeEvents(uint64_t lane_serial);
  void PostEvent(Event event);  // any thread
  void Run(std::promise<Status>* started);
  void DrainEvents();  // consumer thread
  void RefreshCommitted(bool force);
  // Key ordering: commits the dirty progress of `tps` (all when empty); `wait` as
  // KafkaConsumer::CommitOffsets. Consumer thread.
  void CommitProgress(const std::vector<kafka::TopicPartition>& tps, bool wait);
  void OnAssigned(const std::vector<kafka::TopicPartition>& tps);
  void OnRevoked(const std::vector<kafka::TopicPartition>& tps);
  void OnLost(const std::vector<kafka::TopicPartition>& tps);
  // Drains events until none of `lanes` is busy or `deadline` passes. True when idle.
  bool WaitIdle(const std::vector<std::shared_ptr<PartitionLane>>& lanes,
                std::chrono::steady_clock::time_point deadline);
  void Shutdown();

  const ConsumerLoopOptions options_;
  api::HealthRegistry* health_;
  LaneSet lanes_;
  std::unique_ptr<kafka::KafkaConsumer> consumer_;  // consumer thread only
  std::thread thread_;
  std::atomic<bool> subscribed_{false};
  std::atomic<bool> stop_requested_{false};
  std::chrono::steady_clock::time_point last_refresh_{};
  std::chrono::steady_clock::time_point last_commit_{};
  std::map<kafka::TopicPartition, Progress> progress_;  // consumer thread only

  Mutex mu_;
  CondVar cv_;
  std::deque<Event> events_ SNOWCAR_GUARDED_BY(mu_);
  kafka::KafkaConsumer* wake_ SNOWCAR_GUARDED_BY(mu_) = nullptr;
  std::chrono::steady_clock::time_point deadline_ SNOWCAR_GUARDED_BY(mu_){};
  bool stopped_ SNOWCAR_GUARDED_BY(mu_) = false;
};

}  // namespace snowcar::sink
