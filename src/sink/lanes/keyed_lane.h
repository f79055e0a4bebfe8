// SPDX-License-Identifier: Apache-2.0
// One partition under snow.sink.ordering=key. Each ordering key (ordering_key.h) with records
// held gets a Lane of its own, which applies that key's records one at a time, in offset
// order, with the whole error model of lane.h (hold and retry, error path, stop under
// behavior.on.api.errors=fail). Keys run concurrently; the sink's in-flight limit bounds the
// requests of all of them together. A key's lane is dropped once it has nothing held.
//
// Offsets: CommitPrefix turns the out-of-order completions into the offset to commit (the
// first record not done) and the metadata listing the records done above it; both are
// reported through LaneEvents::progress after every completion. A record the metadata it
// was seeded with lists as done is skipped, never applied again.
//
// Dispatch: at most `max_active` keys have a record on their lane at once, and a free slot
// goes to the key whose next record has the LOWEST offset (not to whoever asked first), so
// the record the commit waits for is never queued behind newer ones: the held window slides
// instead of filling up. The rest wait here, in their key's queue.
//
// Memory: once `max_held` records sit between the first one not done and the newest one (a
// slow or failed key keeps the commit back while other keys go on), the partition is
// paused; it is resumed at half that.
//
// Locks: the key lanes report under their own lock and this lane then takes its own
// (key lane -> keyed lane -> consumer loop); so this lane never calls into a key lane while
// holding its lock.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "commit_prefix.h"
#include "lane.h"
#include "snowcar/common/mutex.h"

namespace snowcar::sink {

class KeyedLane final : public PartitionLane, public std::enable_shared_from_this<KeyedLane> {
 public:
  // Makes the lane of one key: same partition, `events` in place of the partition's.
  using KeyLaneFactory = std::function<std::shared_ptr<Lane>(LaneEvents events)>;

  struct Options {
    size_t max_held = 5000;  // snow.sink.ordering.max.held.records
    size_t max_active = 16;  // keys with a record on their lane at once
    // Reads framed keys and values for their ordering key (ordering_key.h); may be null.
    schema_registry::FramedDecoder* decoder = nullptr;
  };

  // `executor` runs the dispatch that follows a key's completion (never under a lock).
  KeyedLane(kafka::TopicPartition tp, const SinkSettings* settings, LaneEvents events,
            Options options, boost::asio::any_io_executor executor, KeyLaneFactory factory);

  const kafka::TopicPartition& tp() const override { return tp_; }
  void Seed(int64_t committed, const std::string& metadata) override;
  void Enqueue(kafka::InRecord record) override;
  void Stop() override;
  void Abandon() override;
  // True while any key's lane applies a record.
  bool Busy() const override;
  // The partition's view: queue_depth is the records held, in_flight_offset the oldest
  // record in flight, state `failed` once a key stopped at a failed record, `backing_off`
  // while the oldest record in flight waits to be retried; retries and the last error are
  // those of the keys held now.
  LaneStatus Snapshot() const override;
  void SetCommitted(int64_t offset) override;
  void SetHighWatermark(int64_t offset) override;
  void SetStored(int64_t offset) override;

 private:
  struct Key {
    std::shared_ptr<Lane> lane;
    std::deque<kafka::InRecord> waiting;  // not given to the lane yet, in offset order
    size_t pending = 0;                   // records of the key not done (waiting or on the lane)
    bool running = false;                 // a record is on the lane
    bool failed = false;
  };
  using Handoff = std::vector<std::pair<std::shared_ptr<Lane>, kafka::InRecord>>;

  std::shared_ptr<Lane> MakeKeyLane(const std::string& key);
  void OnKeyDone(const std::string& key, int64_t next_offset);  // under the key lane's lock
  void OnKeyFailed(const std::string& key, const Failure& failure);
  void ReportLocked() SNOWCAR_REQUIRES(mu_);
  void UpdatePauseLocked() SNOWCAR_REQUIRES(mu_);
  std::vector<std::shared_ptr<Lane>> LanesLocked() const SNOWCAR_REQUIRES(mu_);
  // Takes the next records for free slots, lowest offset first; the caller gives them to
  // their lanes after unlocking.
  Handoff TakeReadyLocked() SNOWCAR_REQUIRES(mu_);
  void Dispatch() SNOWCAR_EXCLUDES(mu_);  // takes mu_ itself

  const kafka::TopicPartition tp_;
  const SinkSettings* settings_;
  const LaneEvents events_;
  const size_t max_held_;
  const size_t max_active_;
  schema_registry::FramedDecoder* const decoder_;
  const boost::asio::any_io_executor executor_;
  const KeyLaneFactory factory_;

  mutable Mutex mu_;
  CommitPrefix prefix_ SNOWCAR_GUARDED_BY(mu_);
  std::map<std::string, Key> keys_ SNOWCAR_GUARDED_BY(mu_);
  // Keys with a waiting record and none on their lane, by that record's offset.
  std::set<std::pair<int64_t, std::string>> ready_ SNOWCAR_GUARDED_BY(mu_);
  size_t active_ SNOWCAR_GUARDED_BY(mu_) = 0;                           // keys running
  std::vector<std::shared_ptr<Lane>> retired_ SNOWCAR_GUARDED_BY(mu_);  // released off the lock
  int64_t last_queued_ SNOWCAR_GUARDED_BY(mu_) = -1;
  int64_t reported_next_ SNOWCAR_GUARDED_BY(mu_) = -1;
  std::string reported_metadata_ SNOWCAR_GUARDED_BY(mu_);
  bool abandoned_ SNOWCAR_GUARDED_BY(mu_) = false;
  bool stopping_ SNOWCAR_GUARDED_BY(mu_) = false;
  bool paused_ SNOWCAR_GUARDED_BY(mu_) = false;
  LaneStatus status_ SNOWCAR_GUARDED_BY(mu_);
};

}  // namespace snowcar::sink
