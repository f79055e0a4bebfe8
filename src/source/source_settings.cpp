// SPDX-License-Identifier: Apache-2.0
// SourceSettings::FromConfig: the source's keys as values, with the checks that need several
// keys at once (which aliases exist, what each one requires). Single values were already
// checked by the config loader (src/config/value_checks.cpp).
#include "snowcar/source/source_settings.h"

#include <algorithm>
#include <map>
#include <set>

#include "exactly_once/eos_settings.h"
#include "snowcar/common/time.h"
#include "snowcar/common/url_host.h"
#include "snowcar/config/config.h"
#include "snowcar/config/options.h"
#include "snowcar/source/rows/keyset_query.h"

namespace snowcar::source {
namespace {

constexpr std::string_view kFamilyPrefix = "snow.table.";
constexpr std::string_view kAliasPlaceholder = "snow.table.<alias>";

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Every alias that has at least one `snow.table.<alias>.*` key, with the first such key.
std::map<std::string, std::string> AliasesWithKeys(const config::Config& config) {
  std::map<std::string, std::string> out;
  for (const auto& [rest, value] : config.WithPrefix(kFamilyPrefix)) {
    const std::string key = std::string(kFamilyPrefix) + rest;
    const config::OptionSpec* spec = config::FindOption(key);
    if (spec == nullptr || !spec->name.starts_with(kAliasPlaceholder)) continue;
    const std::string_view suffix = spec->name.substr(kAliasPlaceholder.size());  // ".name"
    if (rest.size() <= suffix.size()) continue;
    out.emplace(rest.substr(0, rest.size() - suffix.size()), key);
  }
  return out;
}

RecordFormat ParseFormat(std::string_view text) {
  if (text == "json_typed") return RecordFormat::kJsonTyped;
  if (text == "avro") return RecordFormat::kAvro;
  if (text == "json_schema") return RecordFormat::kJsonSchema;
  if (text == "protobuf") return RecordFormat::kProtobuf;
  if (text == "string") return RecordFormat::kString;
  return RecordFormat::kJson;
}

DisplayValue ParseDisplay(std::string_view text) {
  if (text == "true") return DisplayValue::kTrue;
  if (text == "all") return DisplayValue::kAll;
  return DisplayValue::kFalse;
}

TableSettings ReadTable(const config::Config& config, const std::string& alias, int batch_size,
                        int64_t poll_interval_ms, std::vector<std::string>& errors) {
  const std::string prefix = std::string(kFamilyPrefix) + alias + ".";
  const auto key = [&](std::string_view name) { return prefix + std::string(name); };
  TableSettings t;
  t.alias = alias;
  for (std::string_view required : {"name", "topic"}) {
    if (config.GetString(key(required)).empty()) {
      errors.push_back(key(required) + " is required because '" + alias +
                       "' is listed in snow.tables");
    }
  }
  t.name = config.GetString(key("name"));
  t.topic = config.GetString(key("topic"));
  // Given empty means the default, the epoch.
  const std::string& start_text = config.GetString(key("start.timestamp"));
  auto start = start_text.empty() ? Result<int64_t>(int64_t{0}) : ParseSnowTimestamp(start_text);
  if (start.ok()) {
    t.start_ts = *start;
  } else {
    errors.push_back(key("start.timestamp") + ": " + start.status().message());
  }
  t.timestamp_field = config.GetString(key("timestamp.field"));
  t.sys_id_field = config.GetString(key("sys.id.field"));
  if (t.timestamp_field == t.sys_id_field) {
    errors.push_back(key("timestamp.field") + " and " + key("sys.id.field") + " both name '" +
                     t.timestamp_field +
                     "'; the cursor needs a date-time field and a separate id field");
  }
  t.base_query = NormalizeBaseQuery(config.GetString(key("query")));
  for (std::string& field : config.GetList(key("fields"))) {
    if (std::find(t.fields.begin(), t.fields.end(), field) == t.fields.end()) {
      t.fields.push_back(std::move(field));
    }
  }
  if (!t.fields.empty()) {
    std::vector<std::string> missing;
    for (const std::string& needed : {t.sys_id_field, t.timestamp_field}) {
      if (std::find(t.fields.begin(), t.fields.end(), needed) == t.fields.end()) {
        missing.push_back(needed);
      }
    }
    if (!missing.empty()) {
      errors.push_back(key("fields") + ": must include the id field '" + t.sys_id_field +
                       "' and the timestamp field '" + t.timestamp_field +
                       "', which the cursor reads (missing: " + JoinList(missing) + ")");
    }
    if (std::find(t.fields.begin(), t.fields.end(), "sys_mod_count") == t.fields.end()) {
      t.fields.emplace_back("sys_mod_count");
    }
  }
  const std::string& deletes = config.GetString(key("deletes"));
  t.deletes = deletes == "audit"             ? DeleteCapture::kAudit
              : deletes == "reconcile"       ? DeleteCapture::kReconcile
              : deletes == "audit+reconcile" ? DeleteCapture::kAuditReconcile
                                             : DeleteCapture::kNone;
  t.deletes_last_row = config.GetBool(key("deletes.last.row"));
  if (t.deletes_last_row && !ReadsAudit(t.deletes)) {
    errors.push_back(key("deletes.last.row") +
                     "=true needs deletes=audit or audit+reconcile: the row comes from the "
                     "audit trail (" +
                     key("deletes") + " is '" + deletes + "')");
  }
  t.reconcile_interval_ms = config.GetInt(key("reconcile.interval.ms"));
  t.reconcile_batch_size = static_cast<int>(config.GetInt(key("reconcile.batch.size")));
  t.display_value = ParseDisplay(config.GetString(key("display.value")));
  t.exclude_reference_link = config.GetBool(key("exclude.reference.link"));
  t.query_domain = config.GetBool(key("query.domain"));
  t.batch_size = config.IsSet(key("batch.size"))
                     ? static_cast<int>(config.GetInt(key("batch.size")))
                     : batch_size;
  t.poll_interval_ms = config.IsSet(key("poll.interval.ms"))
                           ? config.GetInt(key("poll.interval.ms"))
                           : poll_interval_ms;
  if (config.IsSet(key("poll.interval.max.ms"))) {
    t.poll_interval_max_ms = config.GetInt(key("poll.interval.max.ms"));
    if (t.poll_interval_max_ms < t.poll_interval_ms) {
      errors.push_back(key("poll.interval.max.ms") + " (" + std::to_string(t.poll_interval_max_ms) +
                       ") is below the table's poll interval (" +
                       std::to_string(t.poll_interval_ms) +
                       " ms): the adaptive wait grows from the poll interval up to it");
    }
  }
  return t;
}

}  // namespace

Result<SourceSettings> SourceSettings::FromConfig(const config::Config& config) {
  std::vector<std::string> errors;
  SourceSettings s;
  s.instance = UrlHost(config.GetString("snow.url"));
  s.overlap_seconds = config.GetInt("snow.source.overlap.seconds");
  s.safety_lag_seconds = config.GetInt("snow.source.safety.lag.seconds");
  s.dedup_window_records = static_cast<size_t>(config.GetInt("snow.source.dedup.window.records"));
  s.bad_row = config.GetString("snow.source.bad.row.behavior") == "skip" ? BadRowBehavior::kSkip
                                                                         : BadRowBehavior::kFail;
  s.startup_probe = config.GetBool("snow.source.startup.probe");
  if (config.GetBool("sink.enabled")) {
    s.echo =
        config.GetString("snow.source.echo") == "suppress" ? EchoMode::kSuppress : EchoMode::kMark;
  }
  s.retry_initial_backoff_ms = config.GetInt("snow.retry.initial.backoff.ms");
  s.retry_max_backoff_ms = config.GetInt("snow.retry.max.backoff.ms");
  s.username = config.GetString("snow.auth.username");
  s.group_id = config.GetString("source.group.id");
  s.group_replica_id = config.GetString("source.group.replica.id");
  s.group_snapshot_interval_ms = config.GetInt("source.group.snapshot.interval.ms");
  s.group_instance_id = config.GetString("kafka.group.instance.id");
  // Never more sweeps than the client lets requests out at once: the rest would only queue.
  s.backfill_parallelism =
      static_cast<int>(std::min(config.GetInt("snow.source.backfill.parallelism"),
                                config.GetInt("snow.http.max.concurrent.requests")));
  s.emit_envelope = config.GetBool("snow.source.emit.envelope");
  s.emit_tombstones = config.GetBool("snow.source.emit.tombstones");
  const std::string& mode = config.GetString("snow.source.schema.mode");
  s.schema_mode = mode == "typed"     ? SchemaMode::kTyped
                  : mode == "strings" ? SchemaMode::kStrings
                                      : SchemaMode::kSchemaless;
  s.schema_refresh_ms = config.GetInt("snow.source.schema.refresh.ms");
  s.key_format = ParseFormat(config.GetString("key.format"));
  s.value_format = ParseFormat(config.GetString("value.format"));
  const bool typed_format = s.value_format != RecordFormat::kJson;
  if (typed_format && !config.IsSet("snow.source.schema.mode")) {
    // value.converter=...AvroConverter in a Connect file: typed values are what it asks for.
    s.schema_mode = SchemaMode::kTyped;
  }
  if (s.schema_mode == SchemaMode::kTyped) {
    if (!typed_format && !config.IsSet("value.format")) {
      s.value_format = RecordFormat::kJsonTyped;
    } else if (!typed_format) {
      errors.push_back(
          "value.format=json writes untyped rows, but snow.source.schema.mode=typed asks for "
          "typed values; choose value.format=json_typed, avro, json_schema or protobuf");
    }
    if (s.emit_envelope) {
      errors.push_back(
          "snow.source.emit.envelope=true wraps untyped JSON only; typed values "
          "(snow.source.schema.mode=typed) are written without an envelope");
    }
  } else if (typed_format) {
    errors.push_back("value.format=" + config.GetString("value.format") +
                     " writes typed values, which snow.source.schema.mode=" + mode +
                     " does not make; set snow.source.schema.mode=typed (or leave it unset)");
  }
  const int batch_size = static_cast<int>(config.GetInt("snow.source.batch.size"));
  const int64_t poll_interval_ms = config.GetInt("snow.source.poll.interval.ms");

  const std::vector<std::string> aliases = config.GetList("snow.tables");
  if (aliases.empty()) {
    errors.push_back(
        "snow.tables lists no table; name at least one alias (e.g. snow.tables=inc with "
        "snow.table.inc.name=incident and snow.table.inc.topic=servicenow.incident), or set "
        "source.enabled=false");
  }
  const std::set<std::string> listed(aliases.begin(), aliases.end());
  for (const auto& [alias, first_key] : AliasesWithKeys(config)) {
    if (listed.count(alias) != 0) continue;
    std::string error = first_key + ": the alias '";
    error += alias;
    error += "' is not listed in snow.tables (";
    error += aliases.empty() ? std::string("empty") : "listed: " + JoinList(aliases);
    error += "); add it there or remove its keys";
    errors.push_back(std::move(error));
  }
  std::set<std::string> seen;
  for (const std::string& alias : aliases) {
    if (!seen.insert(alias).second) continue;  // the loader already reported the repeat
    s.tables.push_back(ReadTable(config, alias, batch_size, poll_interval_ms, errors));
  }

  exactly_once::ReadSettings(config, s, errors);

  // topic.creation.* (KIP-158): what a missing table topic is created with.
  auto topic_creation = kafka::TopicCreation::Parse(config.GetBool("topic.creation.enable"),
                                                    config.WithPrefix("topic.creation."));
  if (topic_creation.ok()) {
    s.topic_creation = std::move(topic_creation).value();
  } else {
    // One problem a line (TopicCreation::Parse), listed with the others.
    const std::string& text = topic_creation.status().message();
    for (size_t start = 0; start < text.size();) {
      const size_t end = std::min(text.find('\n', start), text.size());
      errors.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }

  if (!errors.empty()) {
    std::string message = "invalid source configuration (" + std::to_string(errors.size()) +
                          (errors.size() == 1 ? " problem):" : " problems):");
    for (const std::string& e : errors) message += "\n  - " + e;
    return Status::InvalidArgument(message);
  }
  return s;
}

}  // namespace snowcar::source
