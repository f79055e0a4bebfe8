// SPDX-License-Identifier: Apache-2.0
// The target row's sys_id: up to three sources, reconciled by snow.sink.sys.id.precedence.
#include <optional>
#include <vector>

#include "command_parts.h"
#include "command_text.h"
#include "snowcar/sink/commands/command.h"

namespace snowcar::sink {
namespace {

// One source's sys_id as given (normalised: trimmed, lower case), with how to name it.
struct Candidate {
  std::string where;  // "the record key", "value field 'sys_id'", ...
  std::string sys_id;
  std::string given;  // as written (trimmed), for messages
};

std::string Normalize(std::string_view text) { return LowerAscii(TrimBlank(text)); }

// The key is either the sys_id itself (plain text, or a JSON string as Kafka Connect's JSON
// converter writes one), or a JSON object holding it in snow.sink.sys.id.key.field.
Result<std::optional<Candidate>> FromKey(const kafka::InRecord& record,
                                         const SinkSettings& settings) {
  if (!record.key.has_value()) return std::optional<Candidate>{};
  const std::string trimmed = TrimBlank(*record.key);
  if (trimmed.empty()) return std::optional<Candidate>{};
  if (trimmed.front() == '{') {
    auto parsed = ParseJson(trimmed);
    if (!parsed.ok()) {
      return Status::InvalidArgument("the record key looks like a JSON object but is " +
                                     parsed.status().message());
    }
    const std::string& field = settings.sys_id_key_field;
    const JsonNode* node = parsed->Find(field);
    if (node == nullptr || node->kind == JsonNode::Kind::kNull) {
      return std::optional<Candidate>{};
    }
    if (node->kind != JsonNode::Kind::kString) {
      return Status::InvalidArgument("key field " + Quote(field) + " is " +
                                     std::string(KindName(node->kind)) +
                                     "; a sys_id must be a string");
    }
    const std::string value = Normalize(node->text);
    if (value.empty()) return std::optional<Candidate>{};
    return std::optional<Candidate>{
        Candidate{"key field " + Quote(field), value, TrimBlank(node->text)}};
  }
  if (trimmed.front() == '"') {
    auto parsed = ParseJson(trimmed);
    if (parsed.ok() && parsed->kind == JsonNode::Kind::kString) {
      const std::string value = Normalize(parsed->text);
      if (value.empty()) return std::optional<Candidate>{};
      return std::optional<Candidate>{Candidate{"the record key", value, TrimBlank(parsed->text)}};
    }
  }
  return std::optional<Candidate>{Candidate{"the record key", LowerAscii(trimmed), trimmed}};
}

Result<std::optional<Candidate>> FromValue(const JsonNode* value, const SinkSettings& settings) {
  if (value == nullptr) return std::optional<Candidate>{};
  const std::string& field = settings.sys_id_value_field;
  const JsonNode* node = value->Find(field);
  if (node == nullptr || node->kind == JsonNode::Kind::kNull) return std::optional<Candidate>{};
  if (node->kind != JsonNode::Kind::kString) {
    return Status::InvalidArgument("value field " + Quote(field) + " is " +
                                   std::string(KindName(node->kind)) +
                                   "; a sys_id must be a string");
  }
  const std::string normalized = Normalize(node->text);
  if (normalized.empty()) return std::optional<Candidate>{};
  return std::optional<Candidate>{
      Candidate{"value field " + Quote(field), normalized, TrimBlank(node->text)}};
}

std::optional<Candidate> FromHeader(const kafka::InRecord& record) {
  const kafka::Header* header = kafka::FindHeader(record.headers, kSysIdHeader);
  if (header == nullptr || !header->value.has_value()) return std::nullopt;
  const std::string normalized = Normalize(*header->value);
  if (normalized.empty()) return std::nullopt;
  return Candidate{"header " + Quote(kSysIdHeader), normalized, TrimBlank(*header->value)};
}

Status Validate(const Candidate& c) {
  if (IsValidSysId(c.sys_id)) return Status::Ok();
  return Status::InvalidArgument(c.where + " gives " + Quote(c.given) +
                                 ", which is not a sys_id (32 hexadecimal digits)");
}

}  // namespace

Result<std::string> ResolveSysId(const kafka::InRecord& record, const JsonNode* value,
                                 const SinkSettings& settings) {
  SNOWCAR_ASSIGN_OR_RETURN(std::optional<Candidate> key, FromKey(record, settings));
  SNOWCAR_ASSIGN_OR_RETURN(std::optional<Candidate> from_value, FromValue(value, settings));
  std::optional<Candidate> header = FromHeader(record);

  std::vector<Candidate> order;  // most trusted first
  const auto add = [&order](std::optional<Candidate>& c) {
    if (c.has_value()) order.push_back(std::move(*c));
  };
  switch (settings.sys_id_precedence) {
    case SysIdPrecedence::kKey:
      add(key);
      add(header);
      add(from_value);
      break;
    case SysIdPrecedence::kValue:
      add(from_value);
      add(header);
      add(key);
      break;
    case SysIdPrecedence::kReject:
      add(key);
      add(from_value);
      add(header);
      for (const Candidate& c : order) SNOWCAR_RETURN_IF_ERROR(Validate(c));
      for (const Candidate& c : order) {
        if (c.sys_id != order.front().sys_id) {
          return Status::InvalidArgument(
              "the sys_id sources disagree: " + order.front().where + " gives " +
              Quote(order.front().sys_id) + " but " + c.where + " gives " + Quote(c.sys_id) +
              "; set snow.sink.sys.id.precedence=key or =value to say which wins");
        }
      }
      break;
  }
  if (order.empty()) return std::string();
  SNOWCAR_RETURN_IF_ERROR(Validate(order.front()));
  return std::move(order.front().sys_id);
}

}  // namespace snowcar::sink
