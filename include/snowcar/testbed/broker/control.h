// SPDX-License-Identifier: Apache-2.0
// A line-oriented control channel for a running embedded broker, so a test driver in another
// process can inject faults into `snowcar broker` (its stdin, with --control-stdin).
//
// One command per line; each answers one line: "ok <what was done>" or "error: <why>".
//   down <id|all>                         take a broker off the network
//   up <id|all>                           bring it back
//   rtt <id|all> <ms>                     delay every response (0 restores)
//   errors <Api> <ERROR> [count]          the next `count` (default 1) requests of that kind
//                                         fail with ERROR (a name such as NOT_ENOUGH_REPLICAS
//                                         or _TRANSPORT, or a number)
//   clear <Api>                           forget pushed errors that have not fired
// <Api> is a request kind as ApiKeyName spells it ("Produce", "Fetch", "OffsetCommit", ...).
#pragma once

#include <librdkafka/rdkafka.h>

#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/testbed/broker/api_key.h"
#include "snowcar/testbed/broker/embedded_broker.h"

namespace snowcar::broker {

// "Produce" -> kProduce; InvalidArgument naming the unknown kind otherwise.
Result<ApiKey> ParseApiKey(std::string_view name);
// "NOT_ENOUGH_REPLICAS", "_TRANSPORT" (librdkafka's names, with or without the
// RD_KAFKA_RESP_ERR_ prefix) or a number.
Result<rd_kafka_resp_err_t> ParseKafkaError(std::string_view text);

// Runs one command line against `broker`; the answer text ("ok ...") or the error.
Result<std::string> RunControlCommand(EmbeddedBroker& broker, std::string_view line);

}  // namespace snowcar::broker
