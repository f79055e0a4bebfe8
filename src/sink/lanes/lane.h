// SPDX-License-Identifier: Apache-2.0
// One lane per assigned partition: records applied strictly one at a time, in offset order,
// on the lane's own strand of the shared pool.
//
// The lane knows nothing about the Kafka consumer. Records come in through Enqueue() (from
// the consumer thread) and the lane reports back through LaneEvents: "this offset is done"
// (store offset+1), "pause / resume my partition", "I stopped at a failed record". That seam
// is what lets tests drive a lane with hand-made records and no broker.
//
// A record is done (completed) when it was applied, or when its permanent failure went
// through the error path (DLQ and reporter records acknowledged) under log / ignore. A
// RETRIES_EXHAUSTED failure is never done: the lane pauses its partition, waits (growing
// backoff, capped) and tries the SAME record again; it never skips it. Under
// behavior.on.api.errors=fail the lane stops at the failed record for good (until restart).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "../origin/origin_recorder.h"
#include "../writer/field_catalog.h"
#include "../writer/table_api_writer.h"
#include "error_path.h"
#include "sink_metrics.h"
#include "snowcar/kafka/record.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/servicenow/call_cancel.h"
#include "snowcar/servicenow/instance_gate.h"
#include "snowcar/sink/commands/command.h"
#include "snowcar/sink/commands/failure.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

enum class LaneState {
  kRunning,     // applying records, or idle waiting for some
  kBackingOff,  // waiting to retry the current record
  kFailed,      // stopped at a failed record (behavior.on.api.errors=fail)
  kStopping,    // revoked or shutting down: finishing the current record, taking no more
  kStopped,     // nothing in flight, taking nothing
};
std::string_view LaneStateName(LaneState state);

// Thread-safe callbacks; each must be cheap and must not call back into the lane. They run
// under the lane's own lock (so nothing is reported after Abandon() returns): a handler must
// not take a lock that anyone holds while calling into the lane, or the two deadlock.
struct LaneEvents {
  // The record at `next_offset - 1` is done: store `next_offset`.
  std::function<void(const void* lane, const kafka::TopicPartition&, int64_t next_offset)>
      completed;
  // The partition should be paused (true) or resumed (false).
  std::function<void(const void* lane, const kafka::TopicPartition&, bool paused)> pause;
  // The lane stopped at a failed record under behavior.on.api.errors=fail.
  std::function<void(const void* lane, const kafka::TopicPartition&, const Failure&)> failed;
  // Key ordering only (keyed_lane.h), instead of `completed`: commit `next_offset` with
  // `metadata` (the records done above it).
  std::function<void(const void* lane, const kafka::TopicPartition&, int64_t next_offset,
                     const std::string& metadata)>
      progress;
};

struct LaneOptions {
  // Queue depth at which the lane asks for its partition to be paused, and the depth at
  // which it asks to resume. Records keep being accepted past `pause_at` (a poll may already
  // have fetched them); the bound is what librdkafka has in flight plus this.
  size_t pause_at = 1000;
  size_t resume_at = 100;
  // Backoff before retrying a record: initial, doubled per consecutive retry, capped.
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{30000};
};

// Everything a lane borrows; all outlive it.
struct LaneDeps {
  boost::asio::io_context* io = nullptr;
  const SinkSettings* settings = nullptr;
  TableApiWriter* writer = nullptr;
  FieldCatalog* catalog = nullptr;  // may be null when unknown_field is passthrough
  ErrorPath* error_path = nullptr;
  SinkMetrics* metrics = nullptr;
  // The instance's gate (may be null): while it is closed the lane sends nothing and waits at
  // it instead of on its own back-off.
  servicenow::InstanceGate* gate = nullptr;
  // Decodes commands in Confluent's wire format (command_framed.h); null without a
  // schema.registry.url, and a framed command is then a RECORD_ERROR saying so.
  schema_registry::FramedDecoder* decoder = nullptr;
  // Remembers the row version each successful write made (may be null: nothing remembered).
  OriginRecorder* origins = nullptr;
  LaneEvents events;
  LaneOptions options;
};

// What the socket view shows for a lane.
struct LaneStatus {
  kafka::TopicPartition tp;
  LaneState state = LaneState::kRunning;
  int64_t stored_offset = -1;     // the last offset reported done + 1; -1: none yet
  int64_t committed_offset = -1;  // as last read from the group coordinator; -1: unknown
  int64_t high_watermark = -1;    // the partition's end as the consumer last saw it; -1: unknown
  std::optional<int64_t> in_flight_offset;
  size_t queue_depth = 0;
  int64_t retries = 0;     // backoffs of this lane so far
  int64_t backoff_ms = 0;  // the wait of the current backoff (0 when not backing off)
  std::string last_error;
  std::string last_error_class;
  bool paused = false;
  int64_t completed = 0;
  // Key ordering: the keys that have records held.
  size_t active_keys = 0;
};

// What the consumer loop drives for each assigned partition: a Lane under
// snow.sink.ordering=partition, a KeyedLane (keyed_lane.h) under key. The calls mean what
// they mean for Lane below.
class PartitionLane {
 public:
  virtual ~PartitionLane() = default;
  virtual const kafka::TopicPartition& tp() const = 0;
  // Consumer thread, before the first record: the committed offset and its metadata, as the
  // group coordinator holds them. Only a KeyedLane reads them.
  virtual void Seed(int64_t /*committed*/, const std::string& /*metadata*/) {}
  virtual void Enqueue(kafka::InRecord record) = 0;
  virtual void Stop() = 0;
  virtual void Abandon() = 0;
  virtual bool Busy() const = 0;
  virtual LaneStatus Snapshot() const = 0;
  virtual void SetCommitted(int64_t offset) = 0;
  virtual void SetHighWatermark(int64_t offset) = 0;
  virtual void SetStored(int64_t offset) = 0;
};

class Lane : public PartitionLane, public std::enable_shared_from_this<Lane> {
 public:
  Lane(kafka::TopicPartition tp, LaneDeps deps);
  ~Lane() override;

  const kafka::TopicPartition& tp() const override { return tp_; }

  // Consumer thread. Queues `record` (records at or below the last queued offset are
  // dropped: a lane never applies an offset twice). Ignored once stopping.
  void Enqueue(kafka::InRecord record) override;

  // Any thread. Takes no more records and drops the queued ones. Of the record in flight, if
  // any, nothing more is sent to the instance: a call waiting to retry (a Retry-After) is
  // withdrawn, a call already on the wire is finished, and the record's completion is still
  // reported if that call applied it. A backoff wait is cut short. After a rebalance no
  // write of this lane may reach the instance once the next owner has the partition.
  void Stop() override;
  // Any thread. Like Stop, and the record in flight will NOT be reported done (its partition
  // was lost or the wait for it ran out): after this returns, the lane reports nothing more.
  void Abandon() override;

  // True while a record is being applied (not while backing off or idle); after Stop, while
  // a call of it is still on the wire.
  bool Busy() const override;
  LaneStatus Snapshot() const override;
  void SetCommitted(int64_t offset) override;
  void SetHighWatermark(int64_t offset) override;
  void SetStored(int64_t offset) override;

 private:
  enum class Stage { kApply, kReportSuccess, kErrorPath };

  void ProcessNext();  // strand
  void Apply();        // strand
  void Write(Command command);
  void OnWritten(std::optional<Command> command, WriteOutcome outcome);
  void OnProduceFailed(Stage resume, const Status& produced);
  void ReportSuccess();
  void HandleFailure(std::optional<Command> command, Failure failure);
  void RunErrorPath();
  // Waits the lane's own growing backoff, or `at_least_ms` (the instance's Retry-After) when
  // that is longer, then resumes at `resume`.
  void Backoff(Stage resume, const std::string& why, const std::string& klass,
               std::optional<int64_t> at_least_ms = std::nullopt);
  void Resume();
  void Complete();
  void Failed(const Failure& failure);
  void NoteError(const Failure& failure);
  // REQUIRES: mu_ held. Tells the consumer when the wanted pause state changes.
  void UpdatePauseLocked();
  void Post(std::function<void()> fn);

  const kafka::TopicPartition tp_;
  LaneDeps deps_;
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::steady_timer timer_;

  // Strand-only: the record being applied and where it got to.
  std::optional<kafka::InRecord> current_;
  std::optional<Command> current_command_;
  std::optional<Applied> current_applied_;
  std::optional<Failure> current_failure_;
  // What earlier tries of the current record may have done on the instance (kept across
  // backoffs), and which error-path records Kafka acknowledged for its current failure.
  std::shared_ptr<WriteHistory> current_history_;
  std::shared_ptr<ErrorDelivery> current_delivery_;
  // Goes with every write of the lane; Stop() cancels it.
  const std::shared_ptr<servicenow::CallCancel> cancel_ =
      std::make_shared<servicenow::CallCancel>();
  int consecutive_retries_ = 0;
  Stage resume_stage_ = Stage::kApply;

  mutable std::mutex mu_;
  std::deque<kafka::InRecord> queue_;  // guarded by mu_
  int64_t last_queued_ = -1;           // guarded by mu_
  bool processing_ = false;            // guarded by mu_: a ProcessNext chain is running
  bool busy_ = false;                  // guarded by mu_: a record is being applied
  bool abandoned_ = false;             // guarded by mu_
  bool queue_full_ = false;            // guarded by mu_
  bool paused_ = false;                // guarded by mu_: what we last asked for
  LaneStatus status_;                  // guarded by mu_
};

}  // namespace snowcar::sink
