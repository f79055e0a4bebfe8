// SPDX-License-Identifier: Apache-2.0
// Names of the metric families the sidecar's own modules share, so the writer, the tests and
// the reference in docs/operations.md refer to one spelling. The dashboard and the alerting
// rules in k8s/monitoring are checked against a running sidecar's /metrics
// (tests/integration/sidecar/monitoring_metrics_test.cpp).
#pragma once

#include <string_view>

namespace snowcar::api::metric {

// Always 1; labels version and state_schema.
inline constexpr std::string_view kBuildInfo = "snowcar_build_info";
// 1 for the table's current phase, 0 for the other: labels table, phase (backfill, stream).
inline constexpr std::string_view kSourcePhase = "snowcar_source_phase";
// Row versions the sink of the same process wrote, read back by the source: emitted with the
// snow.origin.* headers (marked), or kept out of the topic under snow.source.echo=suppress.
// Label table.
inline constexpr std::string_view kSourceEchoMarked = "snowcar_source_echo_marked_total";
inline constexpr std::string_view kSourceEchoSuppressed = "snowcar_source_echo_suppressed_total";
// Row versions the sink recorded as its own after a write, and recordings that failed (the
// version is then emitted unmarked).
inline constexpr std::string_view kSinkOriginsRecorded = "snowcar_sink_origins_recorded_total";
inline constexpr std::string_view kSinkOriginErrors = "snowcar_sink_origin_errors_total";
// Records of a command-topic partition not yet applied: the partition's high watermark minus
// the sink's next offset to complete. Labels topic, partition.
inline constexpr std::string_view kSinkConsumerLag = "snowcar_sink_consumer_lag";
// Table API attempts by how long they took. Labels operation (list, get, post, patch, put,
// delete) and status (2xx, 3xx, 4xx, 5xx, or none when no answer arrived).
inline constexpr std::string_view kSnowRequestDuration = "snowcar_snow_request_duration_seconds";
// Requests the source sent to the instance, by table (the row table's alias; its deletes
// stream's requests count as purpose audit) and purpose (page, count, probe, dictionary,
// audit, sweep): what an instance's owner counts against rate limits and quotas.
inline constexpr std::string_view kSnowRequests = "snowcar_snow_requests_total";
// From Produce() to Kafka's acknowledgement, acknowledged records only. Label client.
inline constexpr std::string_view kKafkaProduceDuration = "snowcar_kafka_produce_duration_seconds";

// Deletions emitted and acknowledged: labels table, found_by (audit, reconciliation).
inline constexpr std::string_view kSourceDeletesEmitted = "snowcar_source_deletes_emitted_total";
// Rows that reconciliation found on the instance but never emitted, emitted since. Label table.
inline constexpr std::string_view kSourceReconcileRowsEmitted =
    "snowcar_source_reconcile_rows_emitted_total";
// The last finished reconciliation sweep of a table (label table): when it started (seconds
// since the epoch, 0 before the first), how long it took, how many sys_ids it compared, and
// the differences it found (label kind: deleted, emitted).
inline constexpr std::string_view kSourceReconcileLastStart =
    "snowcar_source_reconcile_last_start_seconds";
inline constexpr std::string_view kSourceReconcileLastDuration =
    "snowcar_source_reconcile_last_duration_seconds";
inline constexpr std::string_view kSourceReconcileLastCompared =
    "snowcar_source_reconcile_last_rows_compared";
inline constexpr std::string_view kSourceReconcileLastDifferences =
    "snowcar_source_reconcile_last_differences";

}  // namespace snowcar::api::metric
