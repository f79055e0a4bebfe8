// SPDX-License-Identifier: Apache-2.0
// DecodeCommand: the steps of command_parts.h in the order reference-behaviour section 3
// gives them, and the unknown-field policy applied once the table's columns are known.
#include "snowcar/sink/commands/command.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "command_json.h"
#include "command_parts.h"
#include "command_text.h"

namespace snowcar::sink {
namespace {

constexpr size_t kMaxTableName = 80;
constexpr size_t kSysIdLength = 32;
// Unknown fields named in one message; the rest are counted.
constexpr size_t kMaxNamedFields = 10;

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// The instance evaluates a query value beginning with "javascript:" (in any case, after
// leading blanks) as a script instead of comparing it.
bool StartsWithJavascript(std::string_view text) {
  constexpr std::string_view kPrefix = "javascript:";
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
  if (text.size() - i < kPrefix.size()) return false;
  for (size_t k = 0; k < kPrefix.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(text[i + k])) != kPrefix[k]) return false;
  }
  return true;
}

Status CheckCorrelationValue(const Command& command, const SinkSettings& settings) {
  const std::string& field = settings.correlation_field;
  const boost::json::value* value = command.fields.if_contains(field);
  if (value == nullptr || !value->is_string() || value->as_string().empty()) {
    return Status::InvalidArgument(
        "field " + Quote(field) +
        " (snow.sink.correlation.field) is missing or empty; "
        "snow.sink.create.ambiguous.behavior=correlation_lookup needs it on every create");
  }
  const boost::json::string& text = value->as_string();
  if (std::any_of(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; })) {
    return Status::InvalidArgument("field " + Quote(field) + " value " + Quote(text) +
                                   " contains a line break, which would change the meaning of "
                                   "the correlation lookup query");
  }
  if (StartsWithJavascript(text)) {
    return Status::InvalidArgument("field " + Quote(field) + " value " + Quote(text) +
                                   " starts with 'javascript:', which the instance would run as "
                                   "a script inside the correlation lookup query");
  }
  if (text.find('^') != boost::json::string::npos) {
    return Status::InvalidArgument("field " + Quote(field) + " value " + Quote(text) +
                                   " contains '^', which would change the meaning of the "
                                   "correlation lookup query (it separates query terms)");
  }
  return Status::Ok();
}

}  // namespace

bool IsValidTableName(std::string_view table) {
  return !table.empty() && table.size() <= kMaxTableName &&
         std::all_of(table.begin(), table.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
         });
}

bool IsValidSysId(std::string_view sys_id) {
  return sys_id.size() == kSysIdLength && std::all_of(sys_id.begin(), sys_id.end(), IsLowerHex);
}

Result<Command> DecodeCommand(const kafka::InRecord& record, const SinkSettings& settings) {
  if (kafka::FindHeader(record.headers, kSourceOperationHeader) != nullptr) {
    return Status::InvalidArgument(
        "the record has the header " + Quote(kSourceOperationHeader) +
        ", so it was written by a source (a replayed source topic?), not by a command "
        "producer; source rows are never applied as commands");
  }
  if (record.value.has_value() && record.value->size() > kMaxCommandValueBytes) {
    return Status::InvalidArgument(
        "the record value is " + std::to_string(record.value->size()) + " bytes, more than the " +
        std::to_string(kMaxCommandValueBytes) + " bytes a command may carry");
  }
  Command command;
  SNOWCAR_ASSIGN_OR_RETURN(command.table, ResolveTable(record, settings));

  // Parsed once: the value may hold the sys_id, and it is the body of every write but a
  // DELETE. A value that is not JSON fails only when a body is needed.
  std::optional<Result<JsonNode>> parsed;
  if (record.value.has_value()) parsed.emplace(ParseJson(*record.value));
  const JsonNode* value = (parsed.has_value() && parsed->ok()) ? &parsed->value() : nullptr;

  SNOWCAR_ASSIGN_OR_RETURN(command.sys_id, ResolveSysId(record, value, settings));
  SNOWCAR_ASSIGN_OR_RETURN(ResolvedOperation op,
                           ResolveOperation(record, !command.sys_id.empty(), settings));
  command.operation = op.operation;
  command.from_upsert = op.from_upsert;
  if (command.operation == Operation::kDelete) return command;

  if (value == nullptr) {
    return Status::InvalidArgument("the record value is " + parsed->status().message());
  }
  SNOWCAR_ASSIGN_OR_RETURN(command.fields, MapFields(*value, settings));
  if (command.operation == Operation::kCreate &&
      settings.ambiguous_create == AmbiguousCreateBehavior::kCorrelationLookup) {
    SNOWCAR_RETURN_IF_ERROR(CheckCorrelationValue(command, settings));
    command.correlation_value =
        std::string(command.fields.at(settings.correlation_field).as_string());
  }
  return command;
}

Status ApplyUnknownFieldPolicy(Command& command, const std::set<std::string>& columns,
                               const SinkSettings& settings, std::vector<std::string>* reported) {
  if (settings.unknown_field == UnknownFieldBehavior::kPassthrough) return Status::Ok();
  std::vector<std::string> unknown;
  for (const auto& member : command.fields) {
    std::string name(member.key());
    if (columns.count(name) == 0) unknown.push_back(std::move(name));
  }
  if (unknown.empty()) return Status::Ok();
  if (settings.unknown_field == UnknownFieldBehavior::kFail) {
    std::sort(unknown.begin(), unknown.end());
    std::string names;
    for (size_t i = 0; i < unknown.size() && i < kMaxNamedFields; ++i) {
      if (i > 0) names += ", ";
      names += Quote(unknown[i]);
    }
    if (unknown.size() > kMaxNamedFields) {
      names += " and " + std::to_string(unknown.size() - kMaxNamedFields) + " more";
    }
    return Status::InvalidArgument(
        "table " + Quote(command.table) + " has no column " + names +
        "; fix the names (snow.sink.field.rename helps) or set snow.sink.unknown.field.behavior "
        "to drop, report or passthrough");
  }
  for (const std::string& name : unknown) {
    command.fields.erase(name);
    if (settings.unknown_field == UnknownFieldBehavior::kReport && reported != nullptr) {
      reported->push_back(name);
    }
  }
  return Status::Ok();
}

}  // namespace snowcar::sink
