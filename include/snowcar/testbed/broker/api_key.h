// SPDX-License-Identifier: Apache-2.0
// Kafka protocol request types, for targeting injected errors and delays at one kind of request.
//
// The numbers are the wire protocol's ApiKey values; only the ones our tests aim at are named.
#pragma once

#include <cstdint>
#include <string>

namespace snowcar::broker {

enum class ApiKey : int16_t {
  kProduce = 0,
  kFetch = 1,
  kListOffsets = 2,
  kMetadata = 3,
  kOffsetCommit = 8,
  kOffsetFetch = 9,
  kFindCoordinator = 10,
  kJoinGroup = 11,
  kHeartbeat = 12,
  kLeaveGroup = 13,
  kSyncGroup = 14,
  kApiVersions = 18,
  kInitProducerId = 22,
  kAddPartitionsToTxn = 24,
  kAddOffsetsToTxn = 25,
  kEndTxn = 26,
  kTxnOffsetCommit = 28,
};

// "Produce", "Fetch", ... or "ApiKey(<n>)" for a value without a name here.
std::string ApiKeyName(ApiKey key);

}  // namespace snowcar::broker
