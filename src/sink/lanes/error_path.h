// SPDX-License-Identifier: Apache-2.0
// What happens after a record is applied or fails for good: the records for the DLQ and the
// reporter topics, produced and ACKNOWLEDGED before the lane may store the record's offset,
// then behavior.on.api.errors for a failure.
//
// A produce that fails is not swallowed: the lane backs off and produces again (the record
// is not written to the instance again), so an offset is never stored past a failure whose
// DLQ record did not reach Kafka.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <memory>
#include <optional>

#include "sink_metrics.h"
#include "snowcar/kafka/producer.h"
#include "snowcar/kafka/record.h"
#include "snowcar/sink/commands/command.h"
#include "snowcar/sink/commands/failure.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

enum class ErrorVerdict {
  kComplete,      // store the offset and go on (log / ignore, or DLQ'd under log/ignore)
  kStop,          // behavior.on.api.errors=fail: the lane stops at this record
  kRetryProduce,  // a DLQ or reporter record was not acknowledged: try producing again
};

// Which records of one failure's error path Kafka has acknowledged. The lane keeps one per
// failure, so running the error path again after a failed produce sends only what is
// missing: each failure reaches the DLQ and the error reporter topic once.
struct ErrorDelivery {
  bool dlq = false;
  bool error_report = false;
};

class ErrorPath {
 public:
  // `producer` may be null when no DLQ or reporter topic is configured.
  ErrorPath(const SinkSettings& settings, std::shared_ptr<kafka::RecordProducer> producer,
            SinkMetrics& metrics)
      : settings_(settings), producer_(std::move(producer)), metrics_(metrics) {}

  // True when some topic needs a producer.
  static bool NeedsProducer(const SinkSettings& settings);

  // A permanent failure (never RETRIES_EXHAUSTED): DLQ record and error report (when
  // configured and not yet in `delivered`), their delivery reports awaited, then the verdict.
  // `delivered` (may be null: nothing yet) is updated on `executor` as reports arrive; pass
  // the same one when running the path again for the same failure. `done` runs on
  // `executor`. `status` says why a kRetryProduce happened.
  void OnFailure(const kafka::InRecord& record, const std::optional<Command>& command,
                 const Failure& failure, const boost::asio::any_io_executor& executor,
                 std::function<void(ErrorVerdict, Status)> done,
                 std::shared_ptr<ErrorDelivery> delivered = nullptr);

  // After a success: the success report (when configured), acknowledged. `done` gets OK, or
  // the produce error (the lane then produces the report again, never rewrites the row).
  void OnSuccess(const kafka::InRecord& record, const Applied& applied,
                 const boost::asio::any_io_executor& executor, std::function<void(Status)> done);

 private:
  // `dlq_of`: set when the first record is a DLQ record, to the partition the dead-lettered
  // command came from (counted per partition once the DLQ acknowledged it). `acked` (may be
  // empty) is told the index of each record Kafka acknowledged, on `executor`.
  void ProduceAll(std::vector<kafka::OutRecord> records,
                  const std::optional<kafka::TopicPartition>& dlq_of,
                  const boost::asio::any_io_executor& executor, std::function<void(Status)> done,
                  const std::function<void(size_t)>& acked = {});

  const SinkSettings& settings_;
  std::shared_ptr<kafka::RecordProducer> producer_;
  SinkMetrics& metrics_;
};

}  // namespace snowcar::sink
