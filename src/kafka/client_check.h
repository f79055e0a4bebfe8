// SPDX-License-Identifier: Apache-2.0
// What `snowcar config check` does beyond building a librdkafka conf, so it refuses every
// Kafka configuration `snowcar run` would refuse at start: librdkafka aliases given twice
// with different values, and the checks librdkafka makes only when it creates a client
// (an unsupported SASL mechanism, a TLS file it cannot load).
#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <string>

#include "client_config.h"
#include "snowcar/common/status.h"

namespace snowcar::kafka::internal {

// The user's properties naming one librdkafka setting twice (sasl.mechanism beside
// sasl.mechanisms, from librdkafka's own property table) with different values: one problem
// per pair naming both keys, values not shown. Ok when there is none.
Status CheckAliasConflicts(const std::map<std::string, std::string>& user);

// Creates a client of `type` from `conf` and destroys it at once, with no broker to connect
// to (bootstrap.servers emptied) and librdkafka's log silenced: what rd_kafka_new refuses is
// refused here, as `run` would be at start (InvalidArgument naming the client).
Status CreateClientOffline(rd_kafka_type_t type, ConfPtr conf);

}  // namespace snowcar::kafka::internal
