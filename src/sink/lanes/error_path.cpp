// SPDX-License-Identifier: Apache-2.0
#include "error_path.h"

#include <boost/asio/post.hpp>

#include "snowcar/common/log.h"

namespace snowcar::sink {

bool ErrorPath::NeedsProducer(const SinkSettings& settings) {
  return !settings.dlq_topic.empty() || !settings.reporter_success_topic.empty() ||
         !settings.reporter_error_topic.empty();
}

void ErrorPath::ProduceAll(std::vector<kafka::OutRecord> records,
                           const std::optional<kafka::TopicPartition>& dlq_of,
                           const boost::asio::any_io_executor& executor,
                           std::function<void(Status)> done,
                           const std::function<void(size_t)>& acked) {
  if (records.empty()) {
    boost::asio::post(executor, [done = std::move(done)]() { done(Status::Ok()); });
    return;
  }
  if (producer_ == nullptr) {
    boost::asio::post(executor, [done = std::move(done)]() {
      done(Status::FailedPrecondition("no producer for the DLQ and reporter topics"));
    });
    return;
  }
  // Every report arrives on `executor` (the lane's strand), so this state needs no lock.
  struct Pending {
    size_t left = 0;
    Status first_error;
    std::function<void(Status)> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->left = records.size();
  pending->done = std::move(done);
  for (size_t i = 0; i < records.size(); ++i) {
    const std::optional<kafka::TopicPartition> dlq_source = i == 0 ? dlq_of : std::nullopt;
    const std::string topic = records[i].topic;
    producer_->Produce(
        std::move(records[i]), executor,
        [this, pending, dlq_source, topic, i, acked](const kafka::DeliveryReport& report) {
          if (report.status.ok()) {
            if (acked) acked(i);
            if (dlq_source) metrics_.CountDlq(*dlq_source);
          } else if (pending->first_error.ok()) {
            pending->first_error = report.status.WithContext("producing to " + topic);
          }
          if (--pending->left == 0) pending->done(pending->first_error);
        });
  }
}

namespace {

// The DLQ record without the original value, for a value the producer cannot send (larger
// than its message.max.bytes): the DLQ still gets key, headers and the error context, and the
// lane is not held forever by a record that can never be produced.
kafka::OutRecord WithoutValue(kafka::OutRecord dlq, const Status& why) {
  const size_t bytes = dlq.value.has_value() ? dlq.value->size() : 0;
  dlq.value.reset();
  dlq.headers.push_back(kafka::Header{
      "snow.error.value.dropped",
      std::to_string(bytes) + " bytes could not be produced: " + std::string(why.message())});
  return dlq;
}

}  // namespace

void ErrorPath::OnFailure(const kafka::InRecord& record, const std::optional<Command>& command,
                          const Failure& failure, const boost::asio::any_io_executor& executor,
                          std::function<void(ErrorVerdict, Status)> done,
                          std::shared_ptr<ErrorDelivery> delivered) {
  if (delivered == nullptr) delivered = std::make_shared<ErrorDelivery>();
  std::vector<kafka::OutRecord> out;
  const bool dlq = !settings_.dlq_topic.empty();
  // Only what Kafka has not acknowledged yet for this failure.
  const bool send_dlq = dlq && !delivered->dlq;
  const bool send_report = !settings_.reporter_error_topic.empty() && !delivered->error_report;
  if (send_dlq) out.push_back(BuildDlqRecord(record, failure, settings_.dlq_topic));
  if (send_report) {
    out.push_back(BuildErrorReport(record, command, failure, settings_.reporter_error_topic));
  }
  // Index in `out` -> what its acknowledgement settles.
  auto acked = [delivered, send_dlq](size_t i) {
    if (send_dlq && i == 0) {
      delivered->dlq = true;
    } else {
      delivered->error_report = true;
    }
  };
  const ApiErrorBehavior behavior = settings_.on_api_errors;
  // Kept for a second try without the value when the first DLQ record is refused as a record
  // (kInvalidArgument: MSG_SIZE_TOO_LARGE and kin); only the DLQ record is produced again.
  std::optional<kafka::OutRecord> dlq_copy;
  if (send_dlq && record.value.has_value()) dlq_copy = out.front();
  auto finish = [record_topic = record.topic, partition = record.partition, offset = record.offset,
                 failure, behavior, dlq, done = std::move(done)](const Status& produced) {
    if (!produced.ok()) return done(ErrorVerdict::kRetryProduce, produced);
    // What each behaviour logs, and whether the partition stops at the record or moves past it.
    log::Level level = log::Level::kDebug;
    std::string_view event = "sink.record.failed_ignored";
    ErrorVerdict verdict = ErrorVerdict::kComplete;
    switch (behavior) {
      case ApiErrorBehavior::kFail:
        level = log::Level::kError;
        event = "sink.record.failed";
        verdict = ErrorVerdict::kStop;
        break;
      case ApiErrorBehavior::kLog:
        level = log::Level::kWarn;
        event = "sink.record.failed_skipped";
        break;
      case ApiErrorBehavior::kIgnore:
        break;
    }
    if (!log::Enabled(level)) return done(verdict, Status::Ok());
    if (behavior == ApiErrorBehavior::kIgnore) {
      // Ignored failures are expected by whoever chose `ignore`: where, and which class.
      log::Write(level, event,
                 {{"topic", record_topic},
                  {"partition", partition},
                  {"offset", offset},
                  {"class", ErrorClassName(failure.klass)}});
    } else {
      log::Write(level, event,
                 {{"topic", record_topic},
                  {"partition", partition},
                  {"offset", offset},
                  {"class", ErrorClassName(failure.klass)},
                  {"http_status", failure.http_status},
                  {"dlq", dlq},
                  {"error", failure.message}});
    }
    return done(verdict, Status::Ok());
  };
  std::optional<kafka::TopicPartition> dlq_of;
  if (send_dlq) dlq_of = kafka::TopicPartition{record.topic, record.partition};
  ProduceAll(
      std::move(out), dlq_of, executor,
      [this, dlq_copy = std::move(dlq_copy), dlq_of, executor, delivered,
       finish = std::move(finish)](const Status& produced) mutable {
        // ProduceAll names the topic that failed first; only the DLQ record carries
        // the (possibly huge) original value.
        const bool dlq_refused =
            !produced.ok() && dlq_copy.has_value() &&
            produced.code() == StatusCode::kInvalidArgument &&
            produced.message().starts_with("producing to " + dlq_copy->topic + ":");
        if (!dlq_refused) return finish(produced);
        SNOWCAR_LOG(kWarn, "sink.dlq.value_dropped",
                    {{"topic", dlq_copy->topic},
                     {"bytes", dlq_copy->value->size()},
                     {"error", produced.message()}});
        std::vector<kafka::OutRecord> slim;
        slim.push_back(WithoutValue(std::move(*dlq_copy), produced));
        ProduceAll(std::move(slim), dlq_of, executor, std::move(finish),
                   [delivered](size_t) { delivered->dlq = true; });
      },
      acked);
}

void ErrorPath::OnSuccess(const kafka::InRecord& record, const Applied& applied,
                          const boost::asio::any_io_executor& executor,
                          std::function<void(Status)> done) {
  std::vector<kafka::OutRecord> out;
  if (!settings_.reporter_success_topic.empty()) {
    out.push_back(BuildSuccessReport(record, applied, settings_.reporter_success_topic));
  }
  ProduceAll(std::move(out), std::nullopt, executor, std::move(done));
}

}  // namespace snowcar::sink
