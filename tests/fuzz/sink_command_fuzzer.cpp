// SPDX-License-Identifier: Apache-2.0
// Sink record decoding (DecodeCommand, ApplyUnknownFieldPolicy). Input, parts split by "--"
// lines: settings selector (a line of letters, see Settings below), key, value, headers
// ("name: value" per line; a name alone is a null header). A key or value of exactly
// "<null>" is absent.
//
// Properties: a command always has a valid table (the fixed one, or one on the allowlist), a
// sys_id that is empty or 32 lower-case hex and present for PATCH/PUT/DELETE, no body for a
// DELETE, string values only, no field outside the allowlist or on the denylist, a
// correlation value free of '^' and line breaks; a record with snow.source.operation is
// always refused; a refusal is kInvalidArgument with a short, single-line, printable-ASCII
// message (it becomes a DLQ header); the unknown-field policy keeps only known columns.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_check.h"
#include "snowcar/sink/commands/command.h"

namespace {

namespace sink = snowcar::sink;

// Each letter of the selector switches one setting away from the default.
sink::SinkSettings Settings(std::string_view selector) {
  sink::SinkSettings s;
  s.table = "incident";
  for (const char c : selector) {
    switch (c) {
      case 'h':
        s.routing = sink::RoutingMode::kHeader;
        s.table_allowlist = {"incident", "u_ticket"};
        break;
      case 'o':
        s.operation_mode = sink::OperationMode::kHeader;
        break;
      case 'O':
        s.operation_header_required = true;
        break;
      case 'u':
        s.operation_mode = sink::OperationMode::kFixed;
        s.operation_fixed_upsert = true;
        break;
      case 'd':
        s.operation_mode = sink::OperationMode::kFixed;
        s.operation_fixed = sink::Operation::kDelete;
        break;
      case 'k':
        s.sys_id_precedence = sink::SysIdPrecedence::kKey;
        break;
      case 'v':
        s.sys_id_precedence = sink::SysIdPrecedence::kValue;
        break;
      case 'c':
        s.null_behavior = sink::NullBehavior::kClear;
        break;
      case 'r':
        s.null_behavior = sink::NullBehavior::kReject;
        break;
      case 'f':
        s.nested = sink::NestedBehavior::kFlatten;
        break;
      case 's':
        s.nested = sink::NestedBehavior::kStringify;
        break;
      case 'n':
        s.renames = {{"a", "b"}, {"b", "a"}, {"desc", "short_description"}};
        break;
      case 'A':
        s.field_allowlist = {"short_description", "a", "b", "state"};
        break;
      case 'D':
        s.field_denylist = {"a", "secret"};
        break;
      case 'C':
        s.ambiguous_create = sink::AmbiguousCreateBehavior::kCorrelationLookup;
        s.correlation_field = "correlation_id";
        break;
      case 'p':
        s.update_method = sink::Operation::kPut;
        break;
      default:
        break;
    }
  }
  return s;
}

std::optional<std::string> Optional(std::string_view part) {
  if (part == "<null>") return std::nullopt;
  return std::string(part);
}

snowcar::kafka::Headers ReadHeaders(std::string_view text) {
  snowcar::kafka::Headers headers;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const size_t colon = line.find(": ");
    if (colon == std::string_view::npos) {
      headers.push_back({std::string(line), std::nullopt});
    } else {
      headers.push_back({std::string(line.substr(0, colon)), std::string(line.substr(colon + 2))});
    }
  }
  return headers;
}

void CheckMessage(const snowcar::Status& status) {
  FUZZ_CHECK(status.code() == snowcar::StatusCode::kInvalidArgument,
             "refusals are kInvalidArgument");
  const std::string& m = status.message();
  FUZZ_CHECK(!m.empty(), "a refusal says why");
  FUZZ_CHECK(m.size() <= 1024, "a refusal message is short (record text is cut)");
  for (const char c : m) {
    const auto b = static_cast<unsigned char>(c);
    FUZZ_CHECK(b >= 0x20 && b < 0x7f, "a refusal message is printable ASCII on one line");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts =
      snowcar::fuzz::SplitParts(std::string_view(reinterpret_cast<const char*>(data), size), "--");
  const sink::SinkSettings settings = Settings(parts[0]);
  snowcar::kafka::InRecord record;
  record.topic = "commands";
  record.offset = 7;
  if (parts.size() > 1) record.key = Optional(parts[1]);
  if (parts.size() > 2) record.value = Optional(parts[2]);
  if (parts.size() > 3) record.headers = ReadHeaders(parts[3]);

  auto decoded = sink::DecodeCommand(record, settings);
  const bool from_source = snowcar::kafka::FindHeader(record.headers, "snow.source.operation");
  if (!decoded.ok()) {
    CheckMessage(decoded.status());
    return 0;
  }
  FUZZ_CHECK(!from_source, "a source record is never a command");
  sink::Command& cmd = *decoded;
  FUZZ_CHECK(sink::IsValidTableName(cmd.table), "a valid table name");
  if (settings.routing == sink::RoutingMode::kFixed) {
    FUZZ_CHECK(cmd.table == settings.table, "fixed routing writes the fixed table");
  } else {
    FUZZ_CHECK(settings.table_allowlist.contains(cmd.table),
               "header routing stays on the allowlist");
  }
  FUZZ_CHECK(cmd.sys_id.empty() || sink::IsValidSysId(cmd.sys_id), "sys_id is 32 lower hex");
  if (cmd.operation != sink::Operation::kCreate) {
    FUZZ_CHECK(!cmd.sys_id.empty(), "PATCH, PUT and DELETE name their row");
  }
  if (cmd.operation == sink::Operation::kDelete)
    FUZZ_CHECK(cmd.fields.empty(), "DELETE has no body");
  for (const auto& [name, value] : cmd.fields) {
    FUZZ_CHECK(value.is_string(), "every value is a string");
    FUZZ_CHECK(!name.empty(), "no empty field name");
    if (!settings.field_allowlist.empty()) {
      // The lists name the record's own (renamed) fields; flatten then opens an allowed
      // object into names below it (docs/sink.md, the order of the mapping steps).
      bool allowed = false;
      for (const auto& a : settings.field_allowlist) {
        allowed |=
            name == a || (settings.nested == sink::NestedBehavior::kFlatten &&
                          std::string_view(name).starts_with(a + settings.flatten_delimiter));
      }
      FUZZ_CHECK(allowed, "allowlist respected");
    }
    FUZZ_CHECK(!settings.field_denylist.contains(std::string(name)), "denylist respected");
  }
  FUZZ_CHECK(cmd.correlation_value.find_first_of("^\r\n") == std::string::npos,
             "a correlation value cannot change its lookup query");

  const std::set<std::string> columns = {"short_description", "state", "a", "correlation_id"};
  sink::SinkSettings fail = settings;
  sink::Command checked = cmd;
  const auto status = sink::ApplyUnknownFieldPolicy(checked, columns, fail, nullptr);
  bool all_known = true;
  for (const auto& [name, value] : cmd.fields) all_known &= columns.contains(std::string(name));
  FUZZ_CHECK(status.ok() == all_known, "fail refuses exactly the commands with unknown fields");
  if (!status.ok()) CheckMessage(status);
  fail.unknown_field = sink::UnknownFieldBehavior::kReport;
  std::vector<std::string> reported;
  checked = cmd;
  FUZZ_CHECK(sink::ApplyUnknownFieldPolicy(checked, columns, fail, &reported).ok(),
             "report never fails");
  FUZZ_CHECK(checked.fields.size() + reported.size() == cmd.fields.size(),
             "report drops and lists");
  for (const auto& [name, value] : checked.fields) {
    FUZZ_CHECK(columns.contains(std::string(name)), "only known columns stay");
  }
  return 0;
}
