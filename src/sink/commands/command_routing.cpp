// SPDX-License-Identifier: Apache-2.0
// Routing: which table a command record writes to.
#include "command_parts.h"
#include "command_text.h"
#include "snowcar/sink/commands/command.h"

namespace snowcar::sink {

Result<std::string> ResolveTable(const kafka::InRecord& record, const SinkSettings& settings) {
  switch (settings.routing) {
    case RoutingMode::kFixed:
      if (!IsValidTableName(settings.table)) {
        return Status::InvalidArgument("snow.sink.table " + Quote(settings.table) +
                                       " is not a table name");
      }
      return settings.table;
    case RoutingMode::kTopicMap: {
      const auto it = settings.topic_table.find(record.topic);
      if (it == settings.topic_table.end()) {
        return Status::InvalidArgument("topic " + Quote(record.topic) +
                                       " has no table: set snow.sink.topic." + record.topic +
                                       ".table");
      }
      if (!IsValidTableName(it->second)) {
        return Status::InvalidArgument("snow.sink.topic." + record.topic + ".table " +
                                       Quote(it->second) + " is not a table name");
      }
      return it->second;
    }
    case RoutingMode::kHeader:
      break;
  }
  const std::string& name = settings.table_header;
  const kafka::Header* header = kafka::FindHeader(record.headers, name);
  if (header == nullptr || !header->value.has_value()) {
    return Status::InvalidArgument("header " + Quote(name) +
                                   (header == nullptr ? " is missing" : " has no value") +
                                   "; snow.sink.routing.mode=header needs it to name the table");
  }
  const std::string& table = *header->value;
  if (!IsValidTableName(table)) {
    return Status::InvalidArgument(
        "header " + Quote(name) + " value " + Quote(table) +
        " is not a table name (lower-case letters, digits and '_', at most 80 characters)");
  }
  if (settings.table_allowlist.count(table) == 0) {
    return Status::InvalidArgument("header " + Quote(name) + " names table " + Quote(table) +
                                   ", which is not on snow.sink.table.allowlist");
  }
  return table;
}

}  // namespace snowcar::sink
