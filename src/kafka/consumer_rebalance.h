// SPDX-License-Identifier: Apache-2.0
// Private to the kafka module: what the consumer does when librdkafka hands it a rebalance
// event (its rebalance_cb, also served by Close from the closing queue). Kept apart from the
// client so the assign/revoke order can be read in one place.
#pragma once

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <cstdint>
#include <functional>

#include "snowcar/kafka/consumer.h"

namespace snowcar::kafka::internal {

// The consumer's parts a rebalance touches.
struct RebalanceContext {
  const RebalanceListener& listener;
  std::atomic<int64_t>& assigned;
  std::atomic<int64_t>& revoked;
  std::atomic<int64_t>& lost;
  // Commits what the listener stored for the revoked partitions before they go; `cooperative`
  // retries while the coordinator answers REBALANCE_IN_PROGRESS.
  std::function<void(bool cooperative)> commit_on_revoke;
};

// Runs on the consumer thread inside Poll() (or Close()). Assigns (every assigned partition
// starts unpaused) and tells the listener; on a revoke tells the listener first, commits,
// then unassigns; a lost assignment is reported as lost and never committed.
void HandleRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                     rd_kafka_topic_partition_list_t* partitions, const RebalanceContext& context);

}  // namespace snowcar::kafka::internal
