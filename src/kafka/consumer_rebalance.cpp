// SPDX-License-Identifier: Apache-2.0
#include "consumer_rebalance.h"

#include <cstring>
#include <string>
#include <vector>

#include "record_convert.h"
#include "snowcar/common/log.h"

namespace snowcar::kafka::internal {
namespace {

std::string Names(const std::vector<TopicPartition>& partitions) {
  std::string out;
  for (const auto& tp : partitions) {
    if (!out.empty()) out += ",";
    out += tp.ToString();
  }
  return out;
}

void Assign(rd_kafka_t* rk, rd_kafka_topic_partition_list_t* partitions, bool cooperative) {
  if (cooperative) {
    if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk, partitions)) {
      SNOWCAR_LOG(kError, "kafka.consumer.assign_failed", {{"error", rd_kafka_error_string(e)}});
      rd_kafka_error_destroy(e);
    }
  } else if (rd_kafka_resp_err_t err = rd_kafka_assign(rk, partitions)) {
    SNOWCAR_LOG(kError, "kafka.consumer.assign_failed", {{"error", rd_kafka_err2str(err)}});
  }
}

// librdkafka keeps an application's pause on a partition across its revocation and a later
// assignment to this member, while the new lane believes its partition is fetched: one
// paused by its previous lane (backing off, failed, queue full) would stall for good. So
// every assigned partition starts unpaused (a copy: the resume writes errors into it).
void StartUnpaused(rd_kafka_t* rk, const rd_kafka_topic_partition_list_t* partitions) {
  PartitionList copy(rd_kafka_topic_partition_list_copy(partitions));
  (void)rd_kafka_resume_partitions(rk, copy.get());  // one never paused stays as it is
}

void Unassign(rd_kafka_t* rk, rd_kafka_topic_partition_list_t* partitions, bool cooperative) {
  if (cooperative) {
    if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, partitions)) {
      SNOWCAR_LOG(kError, "kafka.consumer.unassign_failed", {{"error", rd_kafka_error_string(e)}});
      rd_kafka_error_destroy(e);
    }
  } else if (rd_kafka_resp_err_t err = rd_kafka_assign(rk, nullptr)) {
    SNOWCAR_LOG(kError, "kafka.consumer.unassign_failed", {{"error", rd_kafka_err2str(err)}});
  }
}

}  // namespace

void HandleRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                     rd_kafka_topic_partition_list_t* partitions, const RebalanceContext& context) {
  const bool cooperative = std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
  const std::vector<TopicPartition> tps = FromPartitionList(partitions);
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    Assign(rk, partitions, cooperative);
    // Cooperative rebalances often end with an empty increment: nothing to tell anyone.
    if (tps.empty()) return;
    StartUnpaused(rk, partitions);
    ++context.assigned;
    SNOWCAR_LOG(kInfo, "kafka.consumer.assigned",
                {{"partitions", Names(tps)}, {"cooperative", cooperative}});
    if (context.listener.on_assigned) context.listener.on_assigned(tps);
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    if (tps.empty()) {
      Unassign(rk, partitions, cooperative);
      return;
    }
    if (rd_kafka_assignment_lost(rk)) {
      // The group moved on without us: these offsets belong to someone else now.
      ++context.lost;
      SNOWCAR_LOG(kWarn, "kafka.consumer.lost", {{"partitions", Names(tps)}});
      if (context.listener.on_lost) context.listener.on_lost(tps);
    } else {
      ++context.revoked;
      SNOWCAR_LOG(kInfo, "kafka.consumer.revoked", {{"partitions", Names(tps)}});
      // The listener first: the sink finishes (or abandons) in-flight work and stores the
      // offsets of what completed; then those are committed before the partitions go.
      if (context.listener.on_revoked) context.listener.on_revoked(tps);
      context.commit_on_revoke(cooperative);
    }
    Unassign(rk, partitions, cooperative);
    return;
  }
  SNOWCAR_LOG(kError, "kafka.consumer.rebalance_error", {{"error", rd_kafka_err2str(err)}});
  Unassign(rk, partitions, cooperative);
}

}  // namespace snowcar::kafka::internal
