// SPDX-License-Identifier: Apache-2.0
// SinkSettings::FromConfig: the sink keys as values, plus the rules that span several keys.
// Single values were already checked by the config loader against the option table
// (src/config/option_table_sink.cpp); what is left here are combinations.
#include "snowcar/sink/sink_settings.h"

#include <algorithm>
#include <string_view>

#include "command_text.h"
#include "snowcar/common/url_host.h"
#include "snowcar/config/config.h"

namespace snowcar::sink {
namespace {

constexpr std::string_view kTopicPrefix = "snow.sink.topic.";
constexpr std::string_view kTopicSuffix = ".table";

// The loader stores enums in the table's spelling, so exact comparisons suffice here.
RoutingMode ParseRouting(const std::string& v) {
  if (v == "topic_map") return RoutingMode::kTopicMap;
  if (v == "header") return RoutingMode::kHeader;
  return RoutingMode::kFixed;
}

OperationMode ParseOperationMode(const std::string& v) {
  if (v == "header") return OperationMode::kHeader;
  if (v == "fixed") return OperationMode::kFixed;
  return OperationMode::kKeyValue;
}

SysIdPrecedence ParsePrecedence(const std::string& v) {
  if (v == "key") return SysIdPrecedence::kKey;
  if (v == "value") return SysIdPrecedence::kValue;
  return SysIdPrecedence::kReject;
}

NullBehavior ParseNull(const std::string& v) {
  if (v == "clear") return NullBehavior::kClear;
  if (v == "reject") return NullBehavior::kReject;
  return NullBehavior::kOmit;
}

UnknownFieldBehavior ParseUnknown(const std::string& v) {
  if (v == "drop") return UnknownFieldBehavior::kDrop;
  if (v == "report") return UnknownFieldBehavior::kReport;
  if (v == "passthrough") return UnknownFieldBehavior::kPassthrough;
  return UnknownFieldBehavior::kFail;
}

NestedBehavior ParseNested(const std::string& v) {
  if (v == "flatten") return NestedBehavior::kFlatten;
  if (v == "stringify") return NestedBehavior::kStringify;
  return NestedBehavior::kReject;
}

AmbiguousCreateBehavior ParseAmbiguous(const std::string& v) {
  if (v == "retry") return AmbiguousCreateBehavior::kRetry;
  if (v == "correlation_lookup") return AmbiguousCreateBehavior::kCorrelationLookup;
  return AmbiguousCreateBehavior::kFailAmbiguous;
}

NotFoundBehavior ParseNotFound(const std::string& v) {
  if (v == "ignore") return NotFoundBehavior::kIgnore;
  if (v == "create") return NotFoundBehavior::kCreate;
  return NotFoundBehavior::kFail;
}

ApiErrorBehavior ParseApiErrors(const std::string& v) {
  if (v == "log") return ApiErrorBehavior::kLog;
  if (v == "ignore") return ApiErrorBehavior::kIgnore;
  return ApiErrorBehavior::kFail;
}

// Kafka's rule for topic names; snow.sink.topics has no per-value check in the table.
bool IsValidTopicName(std::string_view topic) {
  if (topic.empty() || topic.size() > 249 || topic == "." || topic == "..") return false;
  return std::all_of(topic.begin(), topic.end(), [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

// "from:to" items, already checked by the loader (CheckFieldRenames).
std::vector<std::pair<std::string, std::string>> ParseRenames(
    const std::vector<std::string>& items) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& item : items) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) continue;
    out.emplace_back(TrimBlank(std::string_view(item).substr(0, colon)),
                     TrimBlank(std::string_view(item).substr(colon + 1)));
  }
  return out;
}

void ReadTopics(const config::Config& config, SinkSettings& s, std::vector<std::string>& errors) {
  s.topics = config.GetList("snow.sink.topics");
  if (config.GetBool("sink.enabled") && s.topics.empty()) {
    errors.push_back(
        "snow.sink.topics (or topics) is required because sink.enabled is true: list the "
        "topics holding commands, e.g. snow.sink.topics=servicenow.commands; set "
        "sink.enabled=false to run without the sink");
  }
  std::set<std::string> seen;
  for (const std::string& topic : s.topics) {
    if (!IsValidTopicName(topic)) {
      errors.push_back("snow.sink.topics: '" + topic +
                       "' is not a Kafka topic name (letters, digits, '.', '_' and '-')");
    } else if (!seen.insert(topic).second) {
      errors.push_back("snow.sink.topics: '" + topic + "' is listed twice");
    }
  }
}

void ReadRouting(const config::Config& config, SinkSettings& s, std::vector<std::string>& errors) {
  s.routing = ParseRouting(config.GetString("snow.sink.routing.mode"));
  s.table = config.GetString("snow.sink.table");
  s.table_header = config.GetString("snow.sink.table.header");
  for (const std::string& t : config.GetList("snow.sink.table.allowlist")) {
    s.table_allowlist.insert(t);
  }
  for (const auto& [rest, table] : config.WithPrefix(kTopicPrefix)) {
    if (!rest.ends_with(kTopicSuffix) || rest.size() <= kTopicSuffix.size()) continue;
    s.topic_table[rest.substr(0, rest.size() - kTopicSuffix.size())] = table;
  }
  switch (s.routing) {
    case RoutingMode::kFixed:
      if (s.table.empty()) {
        errors.push_back(
            "snow.sink.table is required because snow.sink.routing.mode is fixed (e.g. "
            "snow.sink.table=incident)");
      }
      break;
    case RoutingMode::kTopicMap:
      for (const std::string& topic : s.topics) {
        if (s.topic_table.count(topic) == 0) {
          std::string error = "snow.sink.topic." + topic;
          error += ".table is required because snow.sink.routing.mode is topic_map and '";
          error += topic + "' is in snow.sink.topics";
          errors.push_back(std::move(error));
        }
      }
      break;
    case RoutingMode::kHeader:
      if (s.table_allowlist.empty()) {
        errors.push_back(
            "snow.sink.table.allowlist is required because snow.sink.routing.mode is header: "
            "list the tables that records may name (e.g. incident,problem)");
      }
      if (s.table_header.empty()) {
        errors.push_back(
            "snow.sink.table.header must name a header because snow.sink.routing.mode is "
            "header");
      }
      break;
  }
}

void ReadOperation(const config::Config& config, SinkSettings& s,
                   std::vector<std::string>& errors) {
  s.operation_mode = ParseOperationMode(config.GetString("snow.sink.operation.mode"));
  s.operation_header = config.GetString("snow.sink.operation.header");
  s.operation_header_required = config.GetBool("snow.sink.operation.header.required");
  s.update_method =
      config.GetString("snow.sink.update.method") == "PUT" ? Operation::kPut : Operation::kPatch;
  const std::string& fixed = config.GetString("snow.sink.operation.fixed");
  if (fixed == "PATCH") s.operation_fixed = Operation::kPatch;
  if (fixed == "PUT") s.operation_fixed = Operation::kPut;
  if (fixed == "DELETE") s.operation_fixed = Operation::kDelete;
  if (fixed == "UPDATE") s.operation_fixed = s.update_method;
  s.operation_fixed_upsert = fixed == "UPSERT";
  if (s.operation_mode == OperationMode::kFixed && fixed.empty()) {
    errors.push_back(
        "snow.sink.operation.fixed is required because snow.sink.operation.mode is fixed "
        "(one of: CREATE, POST, PATCH, PUT, UPDATE, DELETE, UPSERT)");
  }
  if ((s.operation_mode == OperationMode::kHeader || s.operation_header_required) &&
      s.operation_header.empty()) {
    errors.push_back(
        "snow.sink.operation.header must name a header because the operation is read from it");
  }
  if (!s.operation_header.empty() && s.operation_header == s.table_header &&
      s.routing == RoutingMode::kHeader) {
    errors.push_back("snow.sink.operation.header and snow.sink.table.header are both '" +
                     s.operation_header +
                     "'; one header cannot name both the table and the "
                     "operation");
  }
}

void ReadMapping(const config::Config& config, SinkSettings& s, std::vector<std::string>& errors) {
  s.sys_id_key_field = config.GetString("snow.sink.sys.id.key.field");
  s.sys_id_value_field = config.GetString("snow.sink.sys.id.value.field");
  s.sys_id_precedence = ParsePrecedence(config.GetString("snow.sink.sys.id.precedence"));
  s.null_behavior = ParseNull(config.GetString("snow.sink.null.behavior"));
  s.unknown_field = ParseUnknown(config.GetString("snow.sink.unknown.field.behavior"));
  s.nested = ParseNested(config.GetString("snow.sink.nested.behavior"));
  s.flatten_delimiter = config.GetString("snow.sink.nested.flatten.delimiter");
  s.renames = ParseRenames(config.GetList("snow.sink.field.rename"));
  for (const std::string& f : config.GetList("snow.sink.field.allowlist")) {
    s.field_allowlist.insert(f);
  }
  for (const std::string& f : config.GetList("snow.sink.field.denylist")) {
    s.field_denylist.insert(f);
  }
  if (!s.field_allowlist.empty() && !s.field_denylist.empty()) {
    errors.push_back(
        "snow.sink.field.allowlist and snow.sink.field.denylist are both set; give one of "
        "them");
  }
}

void ReadDelivery(const config::Config& config, SinkSettings& s, std::vector<std::string>& errors) {
  s.max_in_flight = static_cast<int>(config.GetInt("snow.sink.max.in.flight"));
  const int64_t http_max = config.GetInt("snow.http.max.concurrent.requests");
  if (s.max_in_flight > http_max) {
    errors.push_back("snow.sink.max.in.flight (" + std::to_string(s.max_in_flight) +
                     ") must not exceed snow.http.max.concurrent.requests (" +
                     std::to_string(http_max) + "); raise the latter or lower the former");
  }
  s.ordering =
      config.GetString("snow.sink.ordering") == "key" ? Ordering::kKey : Ordering::kPartition;
  s.max_held_records = static_cast<int>(config.GetInt("snow.sink.ordering.max.held.records"));
  s.revoke_timeout_ms = config.GetInt("snow.sink.revoke.timeout.ms");
  s.ambiguous_create = ParseAmbiguous(config.GetString("snow.sink.create.ambiguous.behavior"));
  s.correlation_field = config.GetString("snow.sink.correlation.field");
  s.max_ambiguous_posts = static_cast<int>(config.GetInt("snow.retry.max.attempts"));
  s.not_found = ParseNotFound(config.GetString("snow.sink.not.found.behavior"));
  s.on_api_errors = ParseApiErrors(config.GetString("behavior.on.api.errors"));
  if (s.ambiguous_create == AmbiguousCreateBehavior::kCorrelationLookup) {
    const std::string& f = s.correlation_field;
    if (f.empty()) {
      errors.push_back(
          "snow.sink.correlation.field is required because "
          "snow.sink.create.ambiguous.behavior is correlation_lookup: name the column holding "
          "the producer's unique id");
    } else if (IsReservedFieldName(f, s)) {
      errors.push_back("snow.sink.correlation.field '" + f +
                       "' is a system field the sink never writes; name a column the producer "
                       "fills");
    } else if (s.field_denylist.count(f) != 0 ||
               (!s.field_allowlist.empty() && s.field_allowlist.count(f) == 0)) {
      errors.push_back(
          "snow.sink.correlation.field '" + f + "' is removed by " +
          (s.field_denylist.empty() ? "snow.sink.field.allowlist" : "snow.sink.field.denylist") +
          ", so no create could carry it");
    }
  }

  s.dlq_topic = config.GetString("errors.deadletterqueue.topic.name");
  s.reporter_success_topic = config.GetString("snow.sink.reporter.success.topic");
  s.reporter_error_topic = config.GetString("snow.sink.reporter.error.topic");
  s.reporter_include_request_body = config.GetBool("snow.sink.reporter.include.request.body");
  const std::set<std::string> consumed(s.topics.begin(), s.topics.end());
  for (const auto& [key, topic] : {std::pair{"errors.deadletterqueue.topic.name", s.dlq_topic},
                                   {"snow.sink.reporter.success.topic", s.reporter_success_topic},
                                   {"snow.sink.reporter.error.topic", s.reporter_error_topic}}) {
    if (!topic.empty() && consumed.count(topic) != 0) {
      errors.push_back(std::string(key) + " '" + topic +
                       "' is also in snow.sink.topics; the sink would consume its own output");
    }
  }
}

}  // namespace

std::string_view OperationName(Operation op) {
  switch (op) {
    case Operation::kCreate:
      return "CREATE";
    case Operation::kPatch:
      return "PATCH";
    case Operation::kPut:
      return "PUT";
    case Operation::kDelete:
      return "DELETE";
  }
  return "CREATE";
}

Result<SinkSettings> SinkSettings::FromConfig(const config::Config& config) {
  SinkSettings s;
  std::vector<std::string> errors;
  ReadTopics(config, s, errors);
  ReadRouting(config, s, errors);
  ReadOperation(config, s, errors);
  ReadMapping(config, s, errors);
  ReadDelivery(config, s, errors);
  s.retry_initial_backoff_ms = config.GetInt("snow.retry.initial.backoff.ms");
  s.retry_max_backoff_ms = config.GetInt("snow.retry.max.backoff.ms");
  s.shutdown_timeout_ms = config.GetInt("shutdown.timeout.ms");
  s.group_instance_id = config.GetString("kafka.group.instance.id");
  s.instance = UrlHost(config.GetString("snow.url"));
  s.username = config.GetString("snow.auth.username");
  s.origin.window_records = static_cast<size_t>(config.GetInt("snow.sink.origin.window.records"));
  s.origin.window_seconds = config.GetInt("snow.sink.origin.window.seconds");
  if (errors.empty()) return s;
  std::string message = "invalid sink configuration:";
  for (const std::string& e : errors) message += "\n  " + e;
  return Status::InvalidArgument(std::move(message));
}

}  // namespace snowcar::sink
