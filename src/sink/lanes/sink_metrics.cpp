// SPDX-License-Identifier: Apache-2.0
#include "sink_metrics.h"

#include "snowcar/api/metric_names.h"
#include "snowcar/api/prometheus.h"

namespace snowcar::sink {
namespace {

constexpr Operation kOperations[] = {Operation::kCreate, Operation::kPatch, Operation::kPut,
                                     Operation::kDelete};
constexpr ErrorClass kClasses[] = {ErrorClass::kPermission,         ErrorClass::kNotFound,
                                   ErrorClass::kConflict,           ErrorClass::kRecordError,
                                   ErrorClass::kAmbiguous,          ErrorClass::kRetriesExhausted,
                                   ErrorClass::kInstanceUnavailable};

std::string PartitionLabels(const std::string& topic, int32_t partition) {
  return "topic=\"" + api::EscapeLabelValue(topic) + "\",partition=\"" + std::to_string(partition) +
         "\"";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

void SinkMetrics::CountApplied(Operation op, bool ignored, const kafka::TopicPartition& tp) {
  applied_[static_cast<size_t>(op)].fetch_add(1, std::memory_order_relaxed);
  if (ignored) ignored_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(partitions_mu_);
  ++partitions_[{tp.topic, tp.partition}].applied;
}

void SinkMetrics::CountDlq(const kafka::TopicPartition& source) {
  dlq_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(partitions_mu_);
  ++partitions_[{source.topic, source.partition}].dlq;
}

void SinkMetrics::CountFailure(ErrorClass klass) {
  failures_[static_cast<size_t>(klass)].fetch_add(1, std::memory_order_relaxed);
}

int64_t SinkMetrics::applied(Operation op) const {
  return applied_[static_cast<size_t>(op)].load(std::memory_order_relaxed);
}

int64_t SinkMetrics::failures(ErrorClass klass) const {
  return failures_[static_cast<size_t>(klass)].load(std::memory_order_relaxed);
}

void SinkMetrics::Write(std::string& out, int in_flight, int in_flight_max,
                        const std::vector<LaneGauge>& lanes) const {
  api::WriteMetricFamily(out, "snowcar_sink_records_total", "counter",
                         "Records applied to the instance, by the operation finally sent.");
  for (Operation op : kOperations) {
    out += "snowcar_sink_records_total{operation=\"" + Lower(OperationName(op)) + "\"} " +
           std::to_string(applied(op)) + "\n";
  }
  api::WriteMetricFamily(
      out, "snowcar_sink_failures_total", "counter",
      "Records that failed, by error class (a retried record counts once per failure).");
  for (ErrorClass k : kClasses) {
    out += "snowcar_sink_failures_total{class=\"" + std::string(ErrorClassName(k)) + "\"} " +
           std::to_string(failures(k)) + "\n";
  }
  api::WriteMetricFamily(out, "snowcar_sink_in_flight", "gauge",
                         "Requests to the instance in flight now.");
  out += "snowcar_sink_in_flight " + std::to_string(in_flight) + "\n";
  api::WriteMetricFamily(
      out, "snowcar_sink_in_flight_max", "gauge",
      "The most requests ever in flight at once (bounded by snow.sink.max.in.flight).");
  out += "snowcar_sink_in_flight_max " + std::to_string(in_flight_max) + "\n";
  api::WriteMetricFamily(out, "snowcar_sink_retries_total", "counter",
                         "Times a lane backed off to retry the same record.");
  out += "snowcar_sink_retries_total " + std::to_string(retries()) + "\n";
  api::WriteMetricFamily(out, "snowcar_sink_dlq_records_total", "counter",
                         "Records written to the dead letter queue.");
  out += "snowcar_sink_dlq_records_total " + std::to_string(dlq()) + "\n";
  api::WriteMetricFamily(
      out, "snowcar_sink_lane_failed", "gauge",
      "1 when the partition's lane stopped at a failed record (behavior.on.api.errors=fail).");
  for (const auto& lane : lanes) {
    api::WriteSample(out, "snowcar_sink_lane_failed", PartitionLabels(lane.topic, lane.partition),
                     int64_t{lane.failed ? 1 : 0});
  }
  api::WriteMetricFamily(out, "snowcar_sink_partition_in_flight", "gauge",
                         "1 while a record of the partition is being applied (a lane applies "
                         "one at a time, in offset order).");
  for (const auto& lane : lanes) {
    api::WriteSample(out, "snowcar_sink_partition_in_flight",
                     PartitionLabels(lane.topic, lane.partition), int64_t{lane.in_flight ? 1 : 0});
  }
  api::WriteMetricFamily(out, "snowcar_sink_partition_queued", "gauge",
                         "Records of the partition fetched and waiting for their lane.");
  for (const auto& lane : lanes) {
    api::WriteSample(out, "snowcar_sink_partition_queued",
                     PartitionLabels(lane.topic, lane.partition), lane.queued);
  }
  api::WriteMetricFamily(out, api::metric::kSinkConsumerLag, "gauge",
                         "Records of the partition not yet applied: its high watermark minus "
                         "the next offset to complete (absent until both are known).");
  for (const auto& lane : lanes) {
    if (lane.lag < 0) continue;
    api::WriteSample(out, api::metric::kSinkConsumerLag,
                     PartitionLabels(lane.topic, lane.partition), lane.lag);
  }
  std::map<std::pair<std::string, int32_t>, PartitionCounters> partitions;
  {
    std::lock_guard lock(partitions_mu_);
    partitions = partitions_;
  }
  // Every partition with a lane has its counters from 0, before its first command: a series
  // that appears at 1 hides that first event from increase() and rate().
  for (const auto& lane : lanes) partitions.try_emplace({lane.topic, lane.partition});
  api::WriteMetricFamily(out, "snowcar_sink_partition_records_total", "counter",
                         "Records of the partition applied to the instance by this replica.");
  for (const auto& [tp, counters] : partitions) {
    api::WriteSample(out, "snowcar_sink_partition_records_total",
                     PartitionLabels(tp.first, tp.second), counters.applied);
  }
  api::WriteMetricFamily(out, "snowcar_sink_partition_dlq_records_total", "counter",
                         "Records of the partition written to the dead letter queue.");
  for (const auto& [tp, counters] : partitions) {
    api::WriteSample(out, "snowcar_sink_partition_dlq_records_total",
                     PartitionLabels(tp.first, tp.second), counters.dlq);
  }
}

}  // namespace snowcar::sink
