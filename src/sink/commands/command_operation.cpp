// SPDX-License-Identifier: Apache-2.0
// The operation: from the operation header when present, else by snow.sink.operation.mode.
#include "command_parts.h"
#include "command_text.h"
#include "snowcar/common/text.h"

namespace snowcar::sink {
namespace {

constexpr std::string_view kAllowed = "CREATE, POST, PATCH, PUT, UPDATE, DELETE, UPSERT";

ResolvedOperation Upsert(bool has_sys_id, const SinkSettings& settings) {
  if (has_sys_id) return {settings.update_method, false};
  return {Operation::kCreate, true};
}

Result<ResolvedOperation> FromHeaderValue(const std::string& header, std::string_view raw,
                                          bool has_sys_id, const SinkSettings& settings) {
  const std::string word = TrimBlank(raw);
  const auto is = [&word](std::string_view name) { return EqualsIgnoreCase(word, name); };
  if (is("CREATE") || is("POST")) return ResolvedOperation{Operation::kCreate, false};
  if (is("PATCH")) return ResolvedOperation{Operation::kPatch, false};
  if (is("PUT")) return ResolvedOperation{Operation::kPut, false};
  if (is("UPDATE")) return ResolvedOperation{settings.update_method, false};
  if (is("DELETE")) return ResolvedOperation{Operation::kDelete, false};
  if (is("UPSERT")) return Upsert(has_sys_id, settings);
  return Status::InvalidArgument(
      "header " + Quote(header) + " value " + Quote(raw) +
      " is not an operation (allowed, in any letter case: " + std::string(kAllowed) + ")");
}

ResolvedOperation Infer(const kafka::InRecord& record, bool has_sys_id,
                        const SinkSettings& settings) {
  if (!record.value.has_value()) return {Operation::kDelete, false};
  if (!has_sys_id) return {Operation::kCreate, false};
  return {settings.update_method, false};
}

}  // namespace

Result<ResolvedOperation> ResolveOperation(const kafka::InRecord& record, bool has_sys_id,
                                           const SinkSettings& settings) {
  const std::string& name = settings.operation_header;
  const kafka::Header* header = name.empty() ? nullptr : kafka::FindHeader(record.headers, name);
  ResolvedOperation resolved;
  if (header != nullptr) {
    SNOWCAR_ASSIGN_OR_RETURN(
        resolved, FromHeaderValue(name, header->value.value_or(""), has_sys_id, settings));
  } else if (settings.operation_header_required) {
    return Status::InvalidArgument("header " + Quote(name) +
                                   " is missing, and snow.sink.operation.header.required is "
                                   "true (allowed values: " +
                                   std::string(kAllowed) + ")");
  } else if (settings.operation_mode == OperationMode::kFixed) {
    resolved = settings.operation_fixed_upsert ? Upsert(has_sys_id, settings)
                                               : ResolvedOperation{settings.operation_fixed, false};
  } else {
    resolved = Infer(record, has_sys_id, settings);
  }

  const Operation op = resolved.operation;
  if (op != Operation::kCreate && !has_sys_id) {
    return Status::InvalidArgument(
        std::string(OperationName(op)) +
        " needs the target row's sys_id, but the record carries none (in the key, value field " +
        Quote(settings.sys_id_value_field) + " or header " + Quote(kSysIdHeader) + ")");
  }
  if (op != Operation::kDelete && !record.value.has_value()) {
    return Status::InvalidArgument(
        "the record value is null, which only a DELETE may carry; "
        "the operation is " +
        std::string(OperationName(op)));
  }
  return resolved;
}

}  // namespace snowcar::sink
