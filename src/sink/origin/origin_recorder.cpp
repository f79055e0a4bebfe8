// SPDX-License-Identifier: Apache-2.0
#include "origin_recorder.h"

#include <charconv>
#include <limits>

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"

namespace snowcar::sink {
namespace {

// The stored value of a field: itself, or the "value" of a reference or display-value object.
const boost::json::value* RawOf(const boost::json::value* v) {
  if (v != nullptr && v->is_object()) return v->as_object().if_contains("value");
  return v;
}

std::optional<uint32_t> ModCount(const boost::json::value* v) {
  v = RawOf(v);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64() && v->as_int64() >= 0 &&
      v->as_int64() <= std::numeric_limits<uint32_t>::max()) {
    return static_cast<uint32_t>(v->as_int64());
  }
  if (v->is_uint64() && v->as_uint64() <= std::numeric_limits<uint32_t>::max()) {
    return static_cast<uint32_t>(v->as_uint64());
  }
  if (!v->is_string()) return std::nullopt;
  const std::string_view text = v->as_string();
  uint32_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return n;
}

// The command's correlation value: what the create decided on, or the correlation field's
// value in a command of another kind that carries it.
std::string CorrelationOf(const std::optional<Command>& command, const SinkSettings& sink) {
  if (!command.has_value()) return {};
  if (!command->correlation_value.empty()) return command->correlation_value;
  if (sink.correlation_field.empty()) return {};
  const boost::json::value* v = command->fields.if_contains(sink.correlation_field);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

OriginSettings OriginSettings::From(const SinkSettings& sink) {
  return {.instance = sink.instance, .user = sink.username, .policy = sink.origin};
}

void ReadWrittenVersion(const boost::json::object& row, Applied& applied) {
  applied.sys_mod_count = ModCount(row.if_contains("sys_mod_count"));
  applied.sys_updated_on.clear();
  if (!applied.sys_mod_count.has_value()) return;
  const boost::json::value* updated = RawOf(row.if_contains("sys_updated_on"));
  if (updated != nullptr && updated->is_string()) {
    applied.sys_updated_on = std::string(updated->as_string());
  }
  const boost::json::value* by = RawOf(row.if_contains("sys_updated_by"));
  applied.sys_updated_by = by != nullptr && by->is_string() ? std::string(by->as_string()) : "";
}

void OriginRecorder::Record(const kafka::InRecord& record, const std::optional<Command>& command,
                            const Applied& applied) {
  if (store_ == nullptr || !applied.sys_mod_count.has_value() || applied.sys_id.empty()) return;
  if (applied.operation == Operation::kDelete) return;
  // A write that changed nothing answers with the version the row had: when that version
  // names another user, it is certainly not the sink's.
  if (!settings_.user.empty() && !applied.sys_updated_by.empty() &&
      applied.sys_updated_by != settings_.user) {
    not_ours_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  state::OriginKey key{settings_.instance, applied.table, applied.sys_id, *applied.sys_mod_count};
  state::Origin origin;
  origin.topic = record.topic;
  origin.partition = record.partition;
  origin.offset = record.offset;
  origin.correlation = CorrelationOf(command, sink_);
  if (const kafka::Header* h = kafka::FindHeader(record.headers, kRequestIdHeader);
      h != nullptr && h->value.has_value()) {
    origin.request_id = *h->value;
  }
  origin.operation = std::string(OperationName(applied.operation));
  origin.sys_updated_on = applied.sys_updated_on;
  origin.written_at_ms = SystemClock::Instance().NowMillis();
  Status s = store_->RecordOrigin(key, origin, settings_.policy);
  if (s.ok()) {
    recorded_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  errors_.fetch_add(1, std::memory_order_relaxed);
  SNOWCAR_LOG(kWarn, "sink.origin.record_failed",
              {{"topic", record.topic},
               {"partition", record.partition},
               {"offset", record.offset},
               {"table", applied.table},
               {"sys_id", applied.sys_id},
               {"error", s.message()}});
}

}  // namespace snowcar::sink
