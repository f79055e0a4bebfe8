// SPDX-License-Identifier: Apache-2.0
// What configuration tells the sink, as values (reference-behaviour sections 1 and 3; the
// option table entries live in src/config/option_table_sink.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/state/state_store.h"

namespace snowcar::config {
class Config;
}

namespace snowcar::sink {

enum class RoutingMode { kFixed, kTopicMap, kHeader };
enum class OperationMode { kKeyValue, kHeader, kFixed };
enum class Operation { kCreate, kPatch, kPut, kDelete };
enum class SysIdPrecedence { kReject, kKey, kValue };
enum class NullBehavior { kOmit, kClear, kReject };
enum class UnknownFieldBehavior { kFail, kDrop, kReport, kPassthrough };
enum class NestedBehavior { kReject, kFlatten, kStringify };
enum class AmbiguousCreateBehavior { kRetry, kFailAmbiguous, kCorrelationLookup };
enum class NotFoundBehavior { kFail, kIgnore, kCreate };
enum class ApiErrorBehavior { kFail, kLog, kIgnore };
// snow.sink.ordering: what stays in offset order within a partition.
enum class Ordering { kPartition, kKey };

// "CREATE", "PATCH", "PUT", "DELETE".
std::string_view OperationName(Operation op);

struct SinkSettings {
  std::vector<std::string> topics;  // snow.sink.topics (or Connect's `topics`)

  RoutingMode routing = RoutingMode::kFixed;
  std::string table;                               // snow.sink.table (fixed)
  std::map<std::string, std::string> topic_table;  // snow.sink.topic.<topic>.table
  std::string table_header = "snow.table";
  std::set<std::string> table_allowlist;  // header routing: required, names checked

  OperationMode operation_mode = OperationMode::kKeyValue;
  // snow.sink.operation.fixed, with UPDATE already resolved to update_method. UPSERT is kept
  // as operation_fixed_upsert (operation_fixed then reads kCreate): it needs the record's
  // sys_id to decide between update_method and CREATE.
  Operation operation_fixed = Operation::kCreate;
  bool operation_fixed_upsert = false;
  std::string operation_header = "snow.operation";
  bool operation_header_required = false;
  Operation update_method = Operation::kPatch;  // kPatch or kPut

  std::string sys_id_key_field = "sys_id";
  std::string sys_id_value_field = "sys_id";
  SysIdPrecedence sys_id_precedence = SysIdPrecedence::kReject;

  NullBehavior null_behavior = NullBehavior::kOmit;
  UnknownFieldBehavior unknown_field = UnknownFieldBehavior::kFail;
  NestedBehavior nested = NestedBehavior::kReject;
  std::string flatten_delimiter = "_";
  std::vector<std::pair<std::string, std::string>> renames;  // from -> to, in order
  std::set<std::string> field_allowlist;                     // empty: all
  std::set<std::string> field_denylist;

  int max_in_flight = 8;
  Ordering ordering = Ordering::kPartition;
  // snow.sink.ordering.max.held.records: under key ordering, the records one partition may
  // hold above its committed offset before it is paused.
  int max_held_records = 5000;
  // snow.sink.revoke.timeout.ms: how long a revoke waits for the writes on the wire of the
  // partitions it takes away (writes not sent yet are withdrawn at once).
  int64_t revoke_timeout_ms = 60000;
  AmbiguousCreateBehavior ambiguous_create = AmbiguousCreateBehavior::kFailAmbiguous;
  std::string correlation_field;
  // snow.retry.max.attempts: under ambiguous.behavior=retry, the POSTs of one record whose
  // answer was lost (each may have created a row) before it fails as AMBIGUOUS.
  int max_ambiguous_posts = 5;
  NotFoundBehavior not_found = NotFoundBehavior::kFail;
  ApiErrorBehavior on_api_errors = ApiErrorBehavior::kFail;

  std::string dlq_topic;               // errors.deadletterqueue.topic.name; empty: none
  std::string reporter_success_topic;  // snow.sink.reporter.success.topic
  std::string reporter_error_topic;    // snow.sink.reporter.error.topic
  bool reporter_include_request_body = false;

  // Keys the sink shares with the source and the sidecar: a lane's back-off between tries
  // (snow.retry.*.backoff.ms), shutdown.timeout.ms (which also bounds a revoke's wait at the
  // stop), kafka.group.instance.id (static membership), and what the origin records carry:
  // the instance's host (snow.url, as the source keys its state), the integration user
  // (snow.auth.username) and the window (snow.sink.origin.window.*).
  int64_t retry_initial_backoff_ms = 500;
  int64_t retry_max_backoff_ms = 30000;
  int64_t shutdown_timeout_ms = 30000;
  std::string group_instance_id;
  std::string instance;
  std::string username;
  state::OriginPolicy origin;

  bool operator==(const SinkSettings&) const = default;

  // Reads and cross-checks the sink keys; InvalidArgument lists every problem naming the key
  // (e.g. topic_map routing without a table for a consumed topic, allowlist and denylist
  // both set, max.in.flight above snow.http.max.concurrent.requests, correlation_lookup
  // without snow.sink.correlation.field).
  static Result<SinkSettings> FromConfig(const config::Config& config);
};

}  // namespace snowcar::sink
