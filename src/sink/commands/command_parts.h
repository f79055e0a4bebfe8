// SPDX-License-Identifier: Apache-2.0
// The steps of DecodeCommand (include/snowcar/sink/commands/command.h), one per file so each rule
// of reference-behaviour section 3 can be read and tested on its own. Every function returns
// InvalidArgument with a message naming the header, field or value that is wrong.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "command_json.h"
#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

// The header a replayed source topic carries; a command record must not have it.
inline constexpr std::string_view kSourceOperationHeader = "snow.source.operation";
// The header that may carry the target row's sys_id.
inline constexpr std::string_view kSysIdHeader = "snow.sys_id";

// command_routing.cpp: the table, by snow.sink.routing.mode. Validated: ^[a-z0-9_]+$ (and on
// the allowlist for header routing).
Result<std::string> ResolveTable(const kafka::InRecord& record, const SinkSettings& settings);

// command_sys_id.cpp: the sys_id from the key, the value field and the snow.sys_id header,
// trimmed and lower-cased, reconciled by snow.sink.sys.id.precedence; "" when no source
// gives one. `value` is the parsed record value, or nullptr when there is none (or it is not
// JSON).
Result<std::string> ResolveSysId(const kafka::InRecord& record, const JsonNode* value,
                                 const SinkSettings& settings);

struct ResolvedOperation {
  Operation operation = Operation::kCreate;
  bool from_upsert = false;  // an UPSERT without a sys_id, sent as CREATE
};

// command_operation.cpp: the operation from the operation header, else by
// snow.sink.operation.mode; then checks that PATCH/PUT/DELETE have a sys_id and that only a
// DELETE has a null value.
Result<ResolvedOperation> ResolveOperation(const kafka::InRecord& record, bool has_sys_id,
                                           const SinkSettings& settings);

// command_mapping.cpp: the body written for `value` (a JSON object): rename, allow/deny list,
// reserved names dropped, null policy, nested policy, every value rendered as a string.
Result<boost::json::object> MapFields(const JsonNode& value, const SinkSettings& settings);

// A scalar as the Table API wants it: strings as is, numbers in exact decimal text
// ("2", "2.5", "123456789012345678901234"), booleans as true/false.
// REQUIRES: node is a string, number or boolean.
std::string RenderScalar(const JsonNode& node);

}  // namespace snowcar::sink
