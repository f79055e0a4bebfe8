// SPDX-License-Identifier: Apache-2.0
// The sink direction: a consumer-group member that applies command records to the Table API
// through one ordered lane per assigned partition, committing only completed offsets.
// docs/sink.md explains the command format, policies and guarantees.
#pragma once

#include <memory>

#include "snowcar/common/status.h"
#include "snowcar/direction/direction.h"
#include "snowcar/kafka/producer.h"

namespace snowcar::sink {

// Seams for tests; production leaves them empty.
struct SinkSeams {
  // Used for the DLQ and reporter topics instead of a KafkaProducer from the `kafka.*` keys.
  std::shared_ptr<kafka::RecordProducer> producer;
};

// Reads SinkSettings from context.config (InvalidArgument lists every problem) and builds
// the direction. Nothing runs until Start().
Result<std::unique_ptr<direction::Direction>> MakeSink(const direction::DirectionContext& context,
                                                       SinkSeams seams = {});

}  // namespace snowcar::sink
