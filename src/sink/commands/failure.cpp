// SPDX-License-Identifier: Apache-2.0
// The records of the error path. Everything taken from an answer or a message is masked
// here, whatever the caller did, because these records leave the process.
#include "snowcar/sink/commands/failure.h"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "snowcar/common/redact.h"

namespace snowcar::sink {
namespace {

namespace json = boost::json;

constexpr size_t kMaxExcerptChars = 500;

// The first `max_chars` UTF-8 characters of `text` (never cutting a multi-byte sequence).
std::string FirstChars(std::string_view text, size_t max_chars) {
  size_t chars = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (chars == max_chars) return std::string(text.substr(0, i));
    ++i;
    while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
    ++chars;
  }
  return std::string(text);
}

std::string Excerpt(std::string_view text) {
  return FirstChars(redact::Mask(text), kMaxExcerptChars);
}

json::object SourcePosition(const kafka::InRecord& original) {
  return json::object{
      {"topic", original.topic}, {"partition", original.partition}, {"offset", original.offset}};
}

kafka::OutRecord Report(const kafka::InRecord& original, const std::string& topic,
                        const json::object& body) {
  kafka::OutRecord out;
  out.topic = topic;
  out.key = original.key;
  out.value = json::serialize(body);
  return out;
}

}  // namespace

std::string_view ErrorClassName(ErrorClass klass) {
  switch (klass) {
    case ErrorClass::kPermission:
      return "PERMISSION";
    case ErrorClass::kNotFound:
      return "NOT_FOUND";
    case ErrorClass::kConflict:
      return "CONFLICT";
    case ErrorClass::kRecordError:
      return "RECORD_ERROR";
    case ErrorClass::kAmbiguous:
      return "AMBIGUOUS";
    case ErrorClass::kRetriesExhausted:
      return "RETRIES_EXHAUSTED";
    case ErrorClass::kInstanceUnavailable:
      return "INSTANCE_UNAVAILABLE";
  }
  return "RECORD_ERROR";
}

bool IsHeld(ErrorClass klass) {
  return klass == ErrorClass::kRetriesExhausted || klass == ErrorClass::kInstanceUnavailable;
}

kafka::OutRecord BuildDlqRecord(const kafka::InRecord& original, const Failure& failure,
                                const std::string& dlq_topic) {
  kafka::OutRecord out;
  out.topic = dlq_topic;
  out.key = original.key;
  out.value = original.value;
  out.headers = original.headers;
  out.timestamp_ms = original.timestamp_ms > 0 ? original.timestamp_ms : 0;
  const std::string klass(ErrorClassName(failure.klass));
  const std::string message = redact::Mask(failure.message);
  const auto add = [&out](std::string key, std::string value) {
    out.headers.push_back(kafka::Header{std::move(key), std::move(value)});
  };
  add("__connect.errors.topic", original.topic);
  add("__connect.errors.partition", std::to_string(original.partition));
  add("__connect.errors.offset", std::to_string(original.offset));
  add("__connect.errors.class.name", klass);
  add("__connect.errors.exception.message", message);
  add("snow.error.class", klass);
  add("snow.error.message", message);
  add("snow.error.attempts", std::to_string(failure.attempts));
  if (failure.http_status != 0) add("snow.error.http.status", std::to_string(failure.http_status));
  if (!failure.request_id.empty()) add("snow.error.request.id", redact::Mask(failure.request_id));
  return out;
}

kafka::OutRecord BuildSuccessReport(const kafka::InRecord& original, const Applied& applied,
                                    const std::string& topic) {
  json::object body{{"result", "success"},
                    {"operation", OperationName(applied.operation)},
                    {"table", applied.table},
                    {"sys_id", applied.sys_id},
                    {"status", applied.http_status},
                    {"request_id", applied.request_id},
                    {"source", SourcePosition(original)}};
  if (applied.sys_mod_count.has_value()) {
    body["sys_mod_count"] = *applied.sys_mod_count;
    body["sys_updated_on"] = applied.sys_updated_on;
  }
  if (!applied.unknown_fields.empty()) {
    json::array names;
    for (const std::string& name : applied.unknown_fields) names.emplace_back(name);
    body["unknown_fields"] = std::move(names);
  }
  if (!applied.request_body.empty()) body["request_body"] = redact::Mask(applied.request_body);
  return Report(original, topic, body);
}

kafka::OutRecord BuildErrorReport(const kafka::InRecord& original,
                                  const std::optional<Command>& command, const Failure& failure,
                                  const std::string& topic) {
  json::object body{{"result", "error"}};
  if (command.has_value()) {
    body["operation"] = OperationName(command->operation);
    body["table"] = command->table;
    body["sys_id"] = command->sys_id.empty() ? json::value(nullptr) : json::value(command->sys_id);
  } else {
    body["operation"] = nullptr;
    body["table"] = nullptr;
    body["sys_id"] = nullptr;
  }
  body["status"] = failure.http_status != 0 ? json::value(failure.http_status) : json::value();
  body["request_id"] =
      failure.request_id.empty() ? json::value() : json::value(redact::Mask(failure.request_id));
  body["source"] = SourcePosition(original);
  body["error_class"] = ErrorClassName(failure.klass);
  body["attempts"] = failure.attempts;
  body["retries"] = failure.attempts > 1 ? failure.attempts - 1 : 0;
  body["message"] = redact::Mask(failure.message);
  body["response_excerpt"] = Excerpt(failure.response_excerpt);
  if (!failure.request_body.empty()) body["request_body"] = redact::Mask(failure.request_body);
  return Report(original, topic, body);
}

}  // namespace snowcar::sink
