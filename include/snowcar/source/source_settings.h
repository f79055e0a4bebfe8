// SPDX-License-Identifier: Apache-2.0
// What configuration tells the source, as values: the global `snow.source.*` keys and one
// TableSettings per alias in `snow.tables` (reference-behaviour section 1; the option table
// entries live in src/config/option_table_source.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/kafka/topic_creation.h"
#include "snowcar/state/state_store.h"

namespace snowcar::config {
class Config;
}

namespace snowcar::source {

enum class DisplayValue { kFalse, kTrue, kAll };          // sysparm_display_value
enum class SchemaMode { kSchemaless, kStrings, kTyped };  // kTyped: types from sys_dictionary
// value.format / key.format. kJson: the untyped JSON row (values); kString: the sys_id's
// bytes (keys, the default).
enum class RecordFormat { kJson, kJsonTyped, kAvro, kJsonSchema, kString, kProtobuf };
enum class BadRowBehavior { kFail, kSkip };
// snow.table.<alias>.deletes: none, audit, reconcile, audit+reconcile.
enum class DeleteCapture { kNone, kAudit, kReconcile, kAuditReconcile };
inline bool ReadsAudit(DeleteCapture d) {
  return d == DeleteCapture::kAudit || d == DeleteCapture::kAuditReconcile;
}
inline bool Reconciles(DeleteCapture d) {
  return d == DeleteCapture::kReconcile || d == DeleteCapture::kAuditReconcile;
}
// exactly.once.source.support: kRequested runs exactly-once when the cluster takes
// transactions and at-least-once otherwise; kRequired refuses to start without them.
enum class ExactlyOnce { kDisabled, kRequested, kRequired };

// snow.source.echo (docs/semantics.md, "The sink's own versions"). kOff: the sink does not
// run in this process (sink.enabled=false), so there is nothing to look up.
enum class EchoMode { kOff, kMark, kSuppress };

struct TableSettings {
  std::string alias;                               // ^[a-z0-9_]+$, unique
  std::string name;                                // snow.table.<alias>.name
  std::string topic;                               // snow.table.<alias>.topic
  int64_t start_ts = 0;                            // .start.timestamp, seconds since epoch, UTC
  std::string timestamp_field = "sys_updated_on";  // .timestamp.field
  std::string sys_id_field = "sys_id";             // .sys.id.field
  std::string base_query;                          // .query, whitespace-normalised
  std::vector<std::string> fields;                 // .fields; empty: all; else id, ts and
                                                   // sys_mod_count are guaranteed in it
  DisplayValue display_value = DisplayValue::kFalse;
  bool exclude_reference_link = true;
  bool query_domain = true;
  int batch_size = 5000;  // page size (sysparm_limit), 1..50000
  int64_t poll_interval_ms = 5000;
  // .poll.interval.max.ms: adaptive polling's ceiling; 0 (unset): the interval is fixed.
  int64_t poll_interval_max_ms = 0;
  DeleteCapture deletes = DeleteCapture::kNone;
  // Reconciliation (deletes=reconcile, audit+reconcile): wait between the starts of two
  // sweeps, and the sys_ids one sweep request reads.
  int64_t reconcile_interval_ms = 3600000;
  int reconcile_batch_size = 10000;
  // .deletes.last.row (deletes=audit, audit+reconcile): put the row sys_audit_delete kept
  // into each DELETE record.
  bool deletes_last_row = false;

  bool operator==(const TableSettings&) const = default;
};

struct SourceSettings {
  // The host of snow.url, lower-case, without port or path, e.g. "acme.service-now.com": the
  // port is left out so a cursor survives a proxy or port change in front of the instance.
  std::string instance;
  std::vector<TableSettings> tables;
  int64_t overlap_seconds = 2;
  int64_t safety_lag_seconds = 1;
  size_t dedup_window_records = 50000;
  BadRowBehavior bad_row = BadRowBehavior::kFail;
  bool startup_probe = true;
  SchemaMode schema_mode = SchemaMode::kSchemaless;
  RecordFormat value_format = RecordFormat::kJson;  // kJson unless schema_mode is kTyped
  RecordFormat key_format = RecordFormat::kString;
  int64_t schema_refresh_ms = 3600000;  // typed: re-read sys_dictionary when older
  bool emit_envelope = false;
  bool emit_tombstones = false;  // after each DELETE record (deletes=audit)
  // Concurrent sweeps over disjoint time ranges of a large backlog (docs/source.md, "Parallel
  // backfill"); snow.source.backfill.parallelism, at most snow.http.max.concurrent.requests.
  int backfill_parallelism = 4;
  EchoMode echo = EchoMode::kOff;

  // Keys the source shares with the sink and the sidecar: the back-off between a table's
  // failed reads (snow.retry.*.backoff.ms) and the integration user (snow.auth.username),
  // whose writes the echo marker knows as the sink's.
  int64_t retry_initial_backoff_ms = 500;
  int64_t retry_max_backoff_ms = 30000;
  std::string username;

  // source.group.*: replicas sharing the tables (docs/scale-out.md). An empty group_id: this
  // replica reads every table; an empty replica id is made from host name and pid at start.
  std::string group_id;
  std::string group_replica_id;
  int64_t group_snapshot_interval_ms = 1000;
  std::string group_instance_id;  // kafka.group.instance.id (static membership)

  // exactly.once.source.support (docs/semantics.md, "Exactly-once"): each page's records and
  // the table's state in one Kafka transaction (src/source/exactly_once/).
  ExactlyOnce exactly_once = ExactlyOnce::kDisabled;
  // transaction.boundary=interval: the longest a transaction stays open; 0 for `poll` (one
  // transaction per page).
  int64_t transaction_interval_ms = 0;
  std::string exactly_once_state_topic = "snowcar.source.state";

  // topic.creation.*: the partitions, replication factor and configs a missing table topic
  // is created with before the table's first produce. Off unless both defaults are given.
  kafka::TopicCreation topic_creation;

  // The dedup index's policy for this source's tables: one builder, for the pollers and for a
  // table taken over from another replica alike.
  state::DedupPolicy dedup_policy() const {
    return {.overlap_seconds = overlap_seconds, .window_records = dedup_window_records};
  }

  bool operator==(const SourceSettings&) const = default;

  // Reads and cross-checks the source keys. InvalidArgument lists every problem, naming the
  // key (e.g. "snow.table.inc.name is required because 'inc' is listed in snow.tables").
  // Checks needing several keys live here: every listed alias has a name and a topic, every
  // alias with keys is listed, .fields names the id and timestamp fields (sys_mod_count is
  // appended when missing), value.format and schema.mode agree (a typed value.format with
  // schema.mode unset means typed, so a Connect file with an Avro converter runs as it is;
  // typed with value.format unset means json_typed), no envelope around typed values. Single values
  // (alias syntax, ORDERBY in a query, dot-walked fields, start timestamps) are refused earlier by
  // the config loader, so `snowcar config check`
  // catches them too. Per-table batch.size and poll.interval.ms default to the globals.
  static Result<SourceSettings> FromConfig(const config::Config& config);
};

}  // namespace snowcar::source
