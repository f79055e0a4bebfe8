// SPDX-License-Identifier: Apache-2.0
// Small librdkafka producer and consumer wrappers for tests: produce messages with keys,
// headers and timestamps and see each delivery report; consume with a consumer group,
// poll style (rd_kafka_consumer_poll, never the batch APIs that misbehave around rebalances in
// librdkafka 2.0.x), until a condition holds or a deadline passes.
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::testsupport {

using Headers = std::vector<std::pair<std::string, std::string>>;
// librdkafka configuration properties, e.g. {{"acks", "all"}}.
using KafkaConfig = std::map<std::string, std::string>;

struct OutMessage {
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a tombstone
  Headers headers;
  int32_t partition = RD_KAFKA_PARTITION_UA;  // UA: let the partitioner choose
  int64_t timestamp_ms = 0;                   // 0: the producer's clock
};

struct DeliveryReport {
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  int32_t partition = -1;
  int64_t offset = -1;
  std::string key;
};

struct Message {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  Headers headers;
  int64_t timestamp_ms = -1;
  rd_kafka_timestamp_type_t timestamp_type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  // First value of header `name`, if present.
  std::optional<std::string> Header(const std::string& name) const;
};

struct KafkaHandleDeleter {
  void operator()(rd_kafka_t* rk) const;
};
using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaHandleDeleter>;

// A consumed message copied out of librdkafka's buffer (`m` stays the caller's to destroy).
Message CopyMessage(const rd_kafka_message_t* m);

// A consumer of `group` (auto commit off) that never subscribes: for reading or writing the
// group's committed offsets. Null when librdkafka refuses the configuration.
KafkaHandle GroupHandle(const std::string& bootstrap, const std::string& group);

// The committed offset of partitions 0..partitions-1 of `topic` in `group` (-1: none).
Result<std::vector<int64_t>> CommittedOffsets(const std::string& bootstrap,
                                              const std::string& group, const std::string& topic,
                                              int partitions);
// Commits offsets[i] for partition i of `topic` in `group`; a negative entry is left alone.
Status CommitOffsets(const std::string& bootstrap, const std::string& group,
                     const std::string& topic, const std::vector<int64_t>& offsets);

// Messages as the test wants them: key-<i>, value-<i>, header seq=<i>, for i in [first, first+n).
std::vector<OutMessage> NumberedMessages(int first, int n);

class TestProducer {
 public:
  // Defaults: enable.idempotence=true, acks=all, linger.ms=5; `config` adds or overrides.
  static Result<std::unique_ptr<TestProducer>> Create(const std::string& bootstrap,
                                                      const KafkaConfig& config = {});
  ~TestProducer();

  rd_kafka_t* handle() const { return rk_.get(); }
  // Enqueues one message (waits for queue space if it is full).
  Status Produce(const std::string& topic, const OutMessage& message);
  // Waits until every enqueued message has a delivery report; DeadlineExceeded otherwise.
  Status Flush(std::chrono::milliseconds timeout);
  // Produce all, then Flush; the reports are those of these messages only, in delivery order.
  Result<std::vector<DeliveryReport>> ProduceAll(const std::string& topic,
                                                 const std::vector<OutMessage>& messages,
                                                 std::chrono::milliseconds timeout);
  // Reports received so far and not yet taken.
  std::vector<DeliveryReport> TakeReports();
  // The fatal error librdkafka raised (idempotent/transactional producers), if any.
  std::optional<std::string> FatalError() const;

 private:
  TestProducer() = default;
  static void OnDelivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);

  KafkaHandle rk_;
  mutable std::mutex mu_;
  std::vector<DeliveryReport> reports_;
};

class TestConsumer {
 public:
  // Joins `group` and subscribes to `topics`. Defaults: auto.offset.reset=earliest,
  // enable.auto.commit=false (commit with Commit()), session.timeout.ms=6000 (a restarted
  // member of the same group rejoins in ~5 s on the mock instead of ~45 s); `config` adds or
  // overrides.
  static Result<std::unique_ptr<TestConsumer>> Create(const std::string& bootstrap,
                                                      const std::string& group,
                                                      const std::vector<std::string>& topics,
                                                      const KafkaConfig& config = {});
  // Leaves the group (rd_kafka_consumer_close) and frees the handle.
  ~TestConsumer();

  rd_kafka_t* handle() const { return rk_.get(); }
  // Polls, appending messages to what it returns, until `done(messages so far)` is true.
  // DeadlineExceeded (with the count seen) if it is not true by `timeout`; a consumer error
  // other than partition EOF is returned as Unavailable.
  Result<std::vector<Message>> PollUntil(
      const std::function<bool(const std::vector<Message>&)>& done,
      std::chrono::milliseconds timeout);
  Result<std::vector<Message>> PollCount(size_t count, std::chrono::milliseconds timeout);
  // Polls for `quiet` and returns whatever arrived: to check that nothing (more) comes.
  std::vector<Message> PollFor(std::chrono::milliseconds quiet);
  // Synchronously commits offset+1 of the last message of each partition in `processed`.
  Status Commit(const std::vector<Message>& processed);

 private:
  TestConsumer() = default;
  KafkaHandle rk_;
};

// One-shot helpers on a fresh client each time.
Result<std::vector<DeliveryReport>> ProduceMessages(const std::string& bootstrap,
                                                    const std::string& topic,
                                                    const std::vector<OutMessage>& messages,
                                                    std::chrono::milliseconds timeout);
// Consumes `count` messages of `topic` in `group` from the committed (or earliest) offset,
// commits them, leaves the group.
Result<std::vector<Message>> ConsumeMessages(const std::string& bootstrap, const std::string& group,
                                             const std::string& topic, size_t count,
                                             std::chrono::milliseconds timeout);

// Partition count of `topic` as the cluster reports it; NotFound if it does not exist.
Result<int> PartitionCount(const std::string& bootstrap, const std::string& topic,
                           std::chrono::milliseconds timeout);

// Replica count of `topic`'s partition 0 (its replication factor); NotFound if it does not
// exist.
Result<int> ReplicationFactor(const std::string& bootstrap, const std::string& topic,
                              std::chrono::milliseconds timeout);

}  // namespace snowcar::testsupport
