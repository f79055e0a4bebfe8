// The option table is assembled from parts so each direction declares its own keys in its
// own file (option_table.cpp keeps the core, sidecar, Kafka and Connect entries).
#pragma once

#include <vector>

#include "snowcar/config/options.h"

namespace snowcar::config {

// snow.tables, snow.table.<alias>.*, snow.source.*  (option_table_source.cpp)
void AppendSourceOptions(std::vector<OptionSpec>& table);
// snow.sink.* (except snow.sink.topics), errors.deadletterqueue.topic.name,
// behavior.on.api.errors  (option_table_sink.cpp)
void AppendSinkOptions(std::vector<OptionSpec>& table);

}  // namespace snowcar::config
