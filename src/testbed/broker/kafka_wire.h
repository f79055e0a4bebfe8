// SPDX-License-Identifier: Apache-2.0
// The few pieces of the Kafka wire protocol the admin front (admin_front.h) needs: reading a
// request's header, rewriting three kinds of answers of the mock, and answering CreateTopics.
//
// A "payload" here is one message without its 4-byte size prefix: for a request
// ApiKey, ApiVersion, CorrelationId, ClientId, body; for an answer CorrelationId, body.
// Only the versions librdkafka 2.0.2's mock speaks for these requests are handled (Metadata,
// FindCoordinator and ApiVersions 0..2, CreateTopics 0..4): all of them use the classic,
// non-flexible encoding. Anything else passes through untouched.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace snowcar::broker::internal {

inline constexpr int16_t kApiMetadata = 3;
inline constexpr int16_t kApiFindCoordinator = 10;
inline constexpr int16_t kApiVersions = 18;
inline constexpr int16_t kApiCreateTopics = 19;
inline constexpr int16_t kApiProduce = 0;
// The CreateTopics versions the front answers (v5 and later use the flexible encoding).
inline constexpr int16_t kCreateTopicsMaxVersion = 4;

// Kafka error codes the CreateTopics answer uses.
inline constexpr int16_t kErrInvalidTopic = 17;
inline constexpr int16_t kErrTopicAlreadyExists = 36;
inline constexpr int16_t kErrInvalidPartitions = 37;
inline constexpr int16_t kErrInvalidReplicationFactor = 38;
inline constexpr int16_t kErrInvalidRequest = 42;

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  // False for a Produce with acks=0: the broker sends no answer to it.
  bool expects_answer = true;
};

// The header of a request payload; nullopt when it is too short to hold one.
std::optional<RequestHeader> ReadRequestHeader(std::string_view payload);

// The correlation id an answer payload starts with.
std::optional<int32_t> ReadCorrelationId(std::string_view payload);

// A mock broker's port -> the port clients must use instead.
using PortMap = std::map<int32_t, int32_t>;

// Metadata answer (v0..2): every broker's port mapped; a controller id that names none of the
// listed brokers (the mock says 0) replaced by the first listed broker. False, and the
// payload unchanged, when it cannot be parsed.
bool RewriteMetadataAnswer(std::string& payload, int16_t version, const PortMap& ports);

// FindCoordinator answer (v0..2): the coordinator's port mapped.
bool RewriteFindCoordinatorAnswer(std::string& payload, int16_t version, const PortMap& ports);

// ApiVersions answer (v0..2) without an error: CreateTopics 0..kCreateTopicsMaxVersion added
// to the list when it is missing.
bool AddCreateTopicsToApiVersions(std::string& payload, int16_t version);

// One topic of a CreateTopics request, as asked.
struct TopicToCreate {
  std::string name;
  int32_t partitions = -1;          // -1: the broker's default
  int16_t replication_factor = -1;  // -1: the broker's default
  int32_t assigned_partitions = 0;  // partitions given with explicit replica assignments
  bool validate_only = false;
};
struct CreateOutcome {
  int16_t error = 0;
  std::string message;  // with error, sent from v1 on
};
using CreateTopicFn = std::function<CreateOutcome(const TopicToCreate&)>;

// The answer payload to a CreateTopics request payload (v0..4), `create` called once per
// topic. nullopt when the request cannot be parsed or has another version.
std::optional<std::string> AnswerCreateTopics(std::string_view request,
                                              const CreateTopicFn& create);

}  // namespace snowcar::broker::internal
