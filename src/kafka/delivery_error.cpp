// SPDX-License-Identifier: Apache-2.0
#include "delivery_error.h"

#include <string>

namespace snowcar::kafka::internal {

StatusCode CodeForDeliveryError(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_NO_ERROR:
      return StatusCode::kOk;
    // Purged by Close(): the record was neither delivered nor refused.
    case RD_KAFKA_RESP_ERR__PURGE_QUEUE:
    case RD_KAFKA_RESP_ERR__PURGE_INFLIGHT:
    case RD_KAFKA_RESP_ERR__DESTROY:
      return StatusCode::kCancelled;
    // Transient: the broker or the network may get better. The whole message.timeout.ms
    // already passed for _MSG_TIMED_OUT, but producing again later may still work.
    case RD_KAFKA_RESP_ERR__MSG_TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT:
    case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
    case RD_KAFKA_RESP_ERR__TRANSPORT:
    case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
    case RD_KAFKA_RESP_ERR__QUEUE_FULL:
    case RD_KAFKA_RESP_ERR__RESOLVE:
    case RD_KAFKA_RESP_ERR__WAIT_COORD:
    case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
    case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
    case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
    case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
    case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_REPLICA_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR:
    case RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED:
    case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
    case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
    case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
    case RD_KAFKA_RESP_ERR_FENCED_LEADER_EPOCH:
    case RD_KAFKA_RESP_ERR_UNKNOWN_LEADER_EPOCH:
      return StatusCode::kUnavailable;
    // The record itself is wrong: producing it again cannot work.
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
    case RD_KAFKA_RESP_ERR_INVALID_RECORD:
    case RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP:
    case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
      return StatusCode::kInvalidArgument;
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
      return StatusCode::kPermissionDenied;
    // The idempotent producer hit an unrecoverable state: this producer must be rebuilt.
    case RD_KAFKA_RESP_ERR__FATAL:
      return StatusCode::kFailedPrecondition;
    default:
      return StatusCode::kInternal;
  }
}

Status DeliveryStatus(rd_kafka_resp_err_t err, std::string_view topic, int32_t partition) {
  const StatusCode code = CodeForDeliveryError(err);
  if (code == StatusCode::kOk) return Status::Ok();
  std::string where(topic);
  where += partition < 0 ? std::string(" (no partition chosen)") : "/" + std::to_string(partition);
  std::string message = code == StatusCode::kCancelled
                            ? "produce to " + where + " cancelled: the producer closed first ("
                            : "produce to " + where + " failed: ";
  message += rd_kafka_err2str(err);
  message +=
      code == StatusCode::kCancelled ? ")" : std::string(" (") + rd_kafka_err2name(err) + ")";
  return {code, std::move(message)};
}

bool IsBrokerRefusal(int err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR__AUTHENTICATION:
    case RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED:
    case RD_KAFKA_RESP_ERR__SSL:  // the broker's certificate does not verify against the CA
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
      return true;
    default:
      return false;
  }
}

}  // namespace snowcar::kafka::internal
