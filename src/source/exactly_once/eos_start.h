// SPDX-License-Identifier: Apache-2.0
// Exactly-once at start-up: decides whether it runs (exactly.once.source.support against what
// the cluster is), then makes each table's transaction and starts it (fencing, restore) before
// any poller loads its state.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "snowcar/kafka/producer.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"
#include "table_transaction.h"

namespace snowcar::api {
class HealthRegistry;
}

namespace snowcar::source::exactly_once {

// By alias; empty: the source runs at least once.
using Transactions = std::map<std::string, std::shared_ptr<TableTransaction>>;

// `probe` asks the cluster its id: librdkafka's mock cluster (the embedded broker) calls
// itself mockCluster..., and its transactions are not faithful (an open transaction's
// records reach read_committed readers), so `requested` runs at least once there and
// `required` is refused. Blocks up to a timeout per table. `health` may be null.
Result<Transactions> StartTransactions(const SourceSettings& settings,
                                       const std::map<std::string, std::string>& kafka_properties,
                                       kafka::KafkaProducer& probe, state::StateStore& store,
                                       api::HealthRegistry* health);

}  // namespace snowcar::source::exactly_once
