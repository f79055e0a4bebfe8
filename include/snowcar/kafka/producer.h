// SPDX-License-Identifier: Apache-2.0
// Producing to Kafka from the shared thread pool without ever blocking a pool thread.
//
// RecordProducer is the interface the source and the sink (DLQ, reporter topics) use; tests
// substitute fakes. KafkaProducer is the librdkafka implementation.
//
// Contract of Produce: `done` runs exactly once, posted to the caller's executor (its strand),
// with the final delivery report: after the broker acknowledged the record (acks=all by
// default), or after librdkafka gave up (message.timeout.ms, a permanent error), or with
// kCancelled when the producer is closed first. A local queue-full condition is NOT an error
// the caller sees: the record waits inside the producer until librdkafka has room, in
// Produce() order.
//
// Threads: each KafkaProducer runs one thread of its own that waits on librdkafka's main
// event queue (100 ms at a time). Delivery reports arrive there in batches; the thread posts
// each `done` to its caller's executor, so user code never runs on it, and then retries the
// queue-full FIFO, since reports have just freed room. Why a thread rather than a pool timer
// calling poll(0): a report is handed on the moment librdkafka has it (no timer period added
// to every produce round trip), an idle producer costs no pool wake-ups, and a pool thread
// never waits inside librdkafka.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "snowcar/common/histogram.h"
#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"

namespace snowcar::kafka {

struct DeliveryReport {
  // OK when acknowledged. Otherwise a Status naming topic, partition and the librdkafka
  // error; kUnavailable when librdkafka calls the error retriable, kCancelled when the
  // producer closed first, other codes for permanent errors.
  Status status;
  int32_t partition = -1;
  int64_t offset = -1;
};

using DeliveryCallback = std::function<void(DeliveryReport)>;

class RecordProducer {
 public:
  virtual ~RecordProducer() = default;

  // Thread-safe. Never blocks. See the file comment for the contract of `done`.
  virtual void Produce(OutRecord record, boost::asio::any_io_executor executor,
                       DeliveryCallback done) = 0;

  // Waits (blocking the calling, non-pool thread) until every record produced so far has its
  // delivery report, or `timeout` passed: then kDeadlineExceeded naming how many are left.
  virtual Status Flush(std::chrono::milliseconds timeout) = 0;
};

struct ProducerOptions {
  // librdkafka properties: the `kafka.*` keys with the prefix stripped (Config::WithPrefix).
  // Consumer-only properties (group.id, auto.offset.reset, ...) are dropped with a log note.
  std::map<std::string, std::string> properties;
  // Forced unless the user set them explicitly in `properties`: enable.idempotence=true,
  // acks=all, partitioner=murmur2_random (Java's default, so keys land where Java puts them).
  bool idempotent = true;
  // Appended to client.id ("snowcar-source", "snowcar-sink-dlq") so brokers' logs say who:
  // the client.id is this value, or "<user's client.id>-<this value>" when the user set one.
  std::string client_id = "snowcar";
  // How often librdkafka statistics are gathered for metrics; 0 = off.
  int statistics_interval_ms = 0;
  // Called with each client-level error librdkafka reports (an rd_kafka_resp_err_t, e.g.
  // RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN), after it is logged, on the producer's own thread:
  // keep it short. Null: logged only.
  std::function<void(int err)> on_client_error;
  // Set by snowcar (the exactly-once source), never from `properties`, where
  // transactional.id stays refused: the producer is transactional (Init/Begin/Commit/Abort
  // below) and implies idempotence.
  std::string transactional_id;
};

// What a transaction call came to (librdkafka's rd_kafka_error_t, classified once here).
struct TransactionResult {
  enum class Kind {
    kOk,
    kRetriable,  // the same call may be made again (timed out, coordinator not available)
    kAbortable,  // the transaction must be aborted; the producer stays usable
    kFenced,     // another producer took the transactional id: never produce with it again
    kFatal,      // this producer is unusable (a new one with the same id may be made)
  };
  Kind kind = Kind::kOk;
  Status status;
  bool ok() const { return kind == Kind::kOk; }
};

class KafkaProducer final : public RecordProducer {
 public:
  // Fails with kInvalidArgument naming the property librdkafka refused (its value redacted
  // when the name says password/secret), or when bootstrap.servers is missing.
  // transactional.id is refused: this producer is idempotent, not transactional.
  static Result<std::unique_ptr<KafkaProducer>> Create(const ProducerOptions& options);
  // The checks of Create that need no broker (the properties librdkafka would refuse, an
  // alias given beside its property with another value, transactional.id, bootstrap.servers,
  // and what librdkafka checks as it creates a client: SASL mechanism, TLS files), with a
  // client created and destroyed at once without any broker: `snowcar config check`.
  static Status CheckOptions(const ProducerOptions& options);
  ~KafkaProducer() override;  // Close(0): pending callbacks get kCancelled

  void Produce(OutRecord record, boost::asio::any_io_executor executor,
               DeliveryCallback done) override;
  Status Flush(std::chrono::milliseconds timeout) override;

  // Transactions (ProducerOptions::transactional_id set; each blocks its caller up to
  // `timeout`, never call them from a pool thread that a delivery report waits on). Init
  // fences every earlier producer with the same id and aborts its open transaction.
  TransactionResult InitTransactions(std::chrono::milliseconds timeout);
  TransactionResult BeginTransaction();
  // Flushes the records of the transaction, then commits it.
  TransactionResult CommitTransaction(std::chrono::milliseconds timeout);
  TransactionResult AbortTransaction(std::chrono::milliseconds timeout);
  // The Kafka cluster id (empty when no broker answered within `timeout`).
  std::string ClusterId(std::chrono::milliseconds timeout);

  // Flushes for at most `timeout`, then fails what is left with kCancelled and destroys the
  // librdkafka handle. Idempotent. Blocks; never call from a delivery callback.
  // A cancelled record may still have reached the broker (it was in flight when purged): treat
  // kCancelled as "not known to be delivered", never as "not written".
  // Produce() after Close() reports kCancelled at once.
  void Close(std::chrono::milliseconds timeout);

  // True when a metadata request is answered within `timeout` (some broker reachable); false
  // after Close(). Blocks the caller up to `timeout`. Used by /v1/ready.
  bool MetadataReachable(std::chrono::milliseconds timeout);

  // Asks for the partitions and leaders of `topics` now, without waiting for the answer.
  // librdkafka otherwise learns a topic at its first record, and that record (and every one
  // behind it) waited about 700 ms for its acknowledgement on the embedded broker, although
  // the metadata answer takes a few ms; once the topic is known a record takes 1 ms.
  void PrepareTopics(const std::vector<std::string>& topics);

  struct Stats {
    int64_t produced = 0;   // Produce() calls
    int64_t delivered = 0;  // acknowledged
    int64_t failed = 0;     // delivery reports with an error
    int64_t queued = 0;     // waiting inside the producer for room in librdkafka
    int64_t in_flight = 0;  // handed to librdkafka, no report yet
    // From Produce() to the acknowledgement, acknowledged records only (a failure's time is
    // librdkafka's timeout, not a latency).
    LatencyHistogram produce_seconds;
  };
  Stats stats() const;
  // The latest librdkafka statistics JSON (empty when statistics are off).
  std::string LastStatisticsJson() const;

  struct Impl;

 private:
  explicit KafkaProducer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace snowcar::kafka
