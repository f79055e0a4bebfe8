// SPDX-License-Identifier: Apache-2.0
// The source direction: one poller per table on the shared pool, producing every observed
// row version to the table's topic, at least once, in (timestamp, sys_id) order.
// docs/source.md explains the polling; docs/semantics.md the guarantees.
#pragma once

#include <memory>

#include "snowcar/common/status.h"
#include "snowcar/direction/direction.h"
#include "snowcar/kafka/producer.h"

namespace snowcar::source {

// Seams for tests; production leaves them empty.
struct SourceSeams {
  // Used instead of a KafkaProducer built from the `kafka.*` keys.
  std::shared_ptr<kafka::RecordProducer> producer;
};

// Reads SourceSettings from context.config (InvalidArgument lists every problem) and builds
// the direction. Nothing runs until Start().
Result<std::unique_ptr<direction::Direction>> MakeSource(const direction::DirectionContext& context,
                                                         const SourceSeams& seams = {});

}  // namespace snowcar::source
