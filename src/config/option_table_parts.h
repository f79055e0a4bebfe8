// SPDX-License-Identifier: Apache-2.0
// The option table is assembled from parts so each direction declares its own keys in its
// own file (option_table.cpp keeps the core, sidecar, Kafka and Connect entries).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "snowcar/config/options.h"

namespace snowcar::config {

// Shared by the parts: the section the sink's keys are listed under in the reference, and the
// longest wait any key accepts.
inline constexpr std::string_view kSink = "Sink";
inline constexpr int64_t kDayMs = int64_t{24} * 3600 * 1000;

// snow.tables, snow.table.<alias>.*, snow.source.*  (option_table_source.cpp)
void AppendSourceOptions(std::vector<OptionSpec>& table);
// snow.sink.* (except snow.sink.topics), errors.deadletterqueue.topic.name,
// behavior.on.api.errors  (option_table_sink.cpp)
void AppendSinkOptions(std::vector<OptionSpec>& table);

// snow.source.echo, snow.sink.origin.window.*: the link between the two directions
// (option_table_origin.cpp)
void AppendOriginOptions(std::vector<OptionSpec>& table);

// exactly.once.source.support (and its alias exactly.once.support), transaction.boundary*,
// snow.source.exactly.once.state.topic  (option_table_exactly_once.cpp)
void AppendExactlyOnceOptions(std::vector<OptionSpec>& table);

// topic.creation.* (Kafka Connect's KIP-158 keys)  (option_table_topic_creation.cpp)
void AppendTopicCreationOptions(std::vector<OptionSpec>& table);

// The section of the keys of Confluent's ServiceNow source and sink connectors.
inline constexpr std::string_view kConfluent = "Keys of Confluent's ServiceNow connectors";
// servicenow.*, kafka.topic, batch.max.rows, poll.interval.s, retry.max.times, proxy.*,
// reporter.*, confluent.*  (option_table_confluent.cpp)
void AppendConfluentOptions(std::vector<OptionSpec>& table);

// The section of the record format and Schema Registry keys.
inline constexpr std::string_view kFormats = "Record formats and Schema Registry";
// value.format, key.format, schema.registry.*, *.subject.name.strategy
// (option_table_registry.cpp)
void AppendRegistryOptions(std::vector<OptionSpec>& table);

}  // namespace snowcar::config
