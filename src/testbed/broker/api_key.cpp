// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/broker/api_key.h"

namespace snowcar::broker {

std::string ApiKeyName(ApiKey key) {
  switch (key) {
    case ApiKey::kProduce:
      return "Produce";
    case ApiKey::kFetch:
      return "Fetch";
    case ApiKey::kListOffsets:
      return "ListOffsets";
    case ApiKey::kMetadata:
      return "Metadata";
    case ApiKey::kOffsetCommit:
      return "OffsetCommit";
    case ApiKey::kOffsetFetch:
      return "OffsetFetch";
    case ApiKey::kFindCoordinator:
      return "FindCoordinator";
    case ApiKey::kJoinGroup:
      return "JoinGroup";
    case ApiKey::kHeartbeat:
      return "Heartbeat";
    case ApiKey::kLeaveGroup:
      return "LeaveGroup";
    case ApiKey::kSyncGroup:
      return "SyncGroup";
    case ApiKey::kApiVersions:
      return "ApiVersions";
    case ApiKey::kInitProducerId:
      return "InitProducerId";
    case ApiKey::kAddPartitionsToTxn:
      return "AddPartitionsToTxn";
    case ApiKey::kAddOffsetsToTxn:
      return "AddOffsetsToTxn";
    case ApiKey::kEndTxn:
      return "EndTxn";
    case ApiKey::kTxnOffsetCommit:
      return "TxnOffsetCommit";
  }
  return "ApiKey(" + std::to_string(static_cast<int>(key)) + ")";
}

}  // namespace snowcar::broker
