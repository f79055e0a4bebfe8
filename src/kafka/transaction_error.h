// SPDX-License-Identifier: Apache-2.0
// librdkafka's transaction errors classified once: retry the call, abort the transaction,
// fenced (stop for good) or fatal (make a new producer).
#pragma once

#include <librdkafka/rdkafka.h>

#include <string_view>

#include "snowcar/kafka/producer.h"

namespace snowcar::kafka::internal {

// Takes ownership of `error` (null: kOk). `call` names the step in the message.
TransactionResult Classify(rd_kafka_error_t* error, std::string_view call);

}  // namespace snowcar::kafka::internal
