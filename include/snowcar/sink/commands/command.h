// SPDX-License-Identifier: Apache-2.0
// Turning one consumed Kafka record into a command for the Table API (reference-behaviour
// section 3): routing, sys_id, operation, and the field mapping. Pure functions: no I/O.
//
// Everything that can be decided from the record alone is decided here, before any request:
// a record that cannot become a valid command is a RECORD_ERROR with a message naming what is
// wrong (the header, the field, the value), and never reaches the instance.
//
// Choices the reference leaves open, made here:
//  - sys_id: a key starting with '{' is a JSON object (its snow.sink.sys.id.key.field is
//    read; a non-string there is an error); a key that is a JSON string is unquoted; any
//    other key is the sys_id itself. Under precedence `key` the order of trust is key, header,
//    value; under `value` it is value, header, key; only the winner must be well formed.
//    Under `reject` every source given must be well formed and all must agree.
//  - operation: the operation header wins in every mode; without it, `header` mode infers
//    like `key_value` unless the header is required. A record that carries a sys_id but says
//    CREATE keeps the id (the row is created with it).
//  - a DELETE ignores the value entirely (it may be absent, or not even JSON).
//  - mapping: renames apply to the record's own names at once (a:b,b:a swaps), and two
//    fields ending with one name are an error; allow/deny lists name fields after renaming;
//    `flatten` opens objects at every depth, applies the null policy to their leaves, drops
//    reserved names among them, and writes arrays as compact JSON (they have no member names
//    to open into). A flattened name that collides with another field is an error.
//  - numbers keep the producer's digits (no rounding through double): 2.0 -> "2",
//    1e3 -> "1000", 123456789012345678901234 stays as written.
//  - hostile input: JSON nested deeper than 64 levels, invalid UTF-8 and repeated member names
//    are refused; record text quoted into messages is cut to 64 bytes and escaped.
#pragma once

#include <boost/json/object.hpp>
#include <set>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

struct Command {
  std::string table;  // validated: ^[a-z0-9_]+$
  Operation operation = Operation::kCreate;
  // Lower-case 32 hex; empty only for CREATE without a known id. A CREATE that carries one
  // (not_found=create, or an explicit id) posts it as the new row's sys_id.
  std::string sys_id;
  // The mapped body: every value a string (or "" to clear). Empty for DELETE.
  boost::json::object fields;
  // The value of snow.sink.correlation.field in `fields` when correlation_lookup is on and
  // the command is a CREATE; validated (no '^', no line break).
  std::string correlation_value;
  // UPSERT resolved to CREATE because the record had no sys_id (for reports only).
  bool from_upsert = false;
};

// The largest record value a command may have: 4 MiB. A value that size is not a row update
// (files belong in the Attachment API), and refusing it before parsing bounds what one lane
// holds in memory. Bigger values are a RECORD_ERROR naming both sizes.
inline constexpr size_t kMaxCommandValueBytes = size_t{4} << 20;

// Decodes routing, sys_id, operation and mapping. Returns kInvalidArgument with a message that
// names what is wrong (it becomes the RECORD_ERROR's message and the DLQ header). A record with
// the header snow.source.operation is refused: a replayed source topic is never applied.
Result<Command> DecodeCommand(const kafka::InRecord& record, const SinkSettings& settings);

// The unknown-field policy, once the table's columns (sys_dictionary along the super-class
// chain) are known: fail -> kInvalidArgument naming the fields; drop -> removed silently;
// report -> removed and listed in `reported`; passthrough -> kept.
Status ApplyUnknownFieldPolicy(Command& command, const std::set<std::string>& columns,
                               const SinkSettings& settings, std::vector<std::string>* reported);

// True when `table` is a valid table name (^[a-z0-9_]+$, at most 80 characters).
bool IsValidTableName(std::string_view table);
// True when `sys_id` is exactly 32 lower-case hex digits.
bool IsValidSysId(std::string_view sys_id);

}  // namespace snowcar::sink
