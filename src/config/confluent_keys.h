// SPDX-License-Identifier: Apache-2.0
// Rewriting the keys of Confluent's ServiceNow connectors onto snowcar's, so that their
// properties files run unchanged (the keys are declared in option_table_confluent.cpp).
//
// Confluent's connectors read one table each and name it with `servicenow.table`; whether that
// table is read (source) or written (sink) depends on the connector, so the rewrite first tells
// a source file from a sink file: by `connector.class` (ending in `SourceConnector` or
// `SinkConnector`), or else by `kafka.topic` (source) or `topics` (sink). A file that names its
// connector also turns the other direction off unless `source.enabled` / `sink.enabled` is
// given, so a Connect file runs only the direction it was written for; and a sink file with a
// `name` but no `kafka.group.id` takes the group Kafka Connect used, `connect-<name>`, so the
// sink goes on from the connector's committed offsets.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "raw_value.h"

namespace snowcar::config {

// Replaces the rewritten keys in `merged` (key -> value as given) by the snowcar keys they
// stand for, each with an origin naming the key it came from ("servicenow.table [a:3]").
// Problems (a value that cannot be rewritten, a key given both ways) go to `errors`; what was
// inferred from `connector.class` goes to `notes`. `today` is the UTC date (`YYYY-MM-DD`)
// used when a source file gives no `servicenow.since`.
void RewriteConfluentKeys(std::map<std::string, RawValue>& merged, const std::string& today,
                          std::vector<std::string>& errors, std::vector<std::string>& notes);

}  // namespace snowcar::config
