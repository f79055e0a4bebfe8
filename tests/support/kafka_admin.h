// SPDX-License-Identifier: Apache-2.0
// Admin calls for tests and benchmarks that run against Apache Kafka (scripts/kafka-server):
// create topics and grant or revoke ACLs over librdkafka's Admin API. The embedded broker
// cannot answer these (its topics are made with BrokerOptions instead).
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "support/kafka_client.h"

namespace snowcar::testsupport {

// Creates `name` with `partitions` (replication factor -1: the broker's default) and topic
// `configs` (e.g. {{"cleanup.policy", "compact"}}). An existing topic is not an error.
// `client` is the admin client's librdkafka configuration, bootstrap.servers included.
Status CreateTopic(const KafkaConfig& client, const std::string& name, int partitions,
                   const std::map<std::string, std::string>& configs = {},
                   std::chrono::milliseconds timeout = std::chrono::seconds(30));

// The value of topic config `name` (e.g. "cleanup.policy") as the broker reports it.
Result<std::string> TopicConfig(const KafkaConfig& client, const std::string& topic,
                                const std::string& name,
                                std::chrono::milliseconds timeout = std::chrono::seconds(30));

// One ACL: Allow `operation` on a literal resource to `principal` from any host.
struct Acl {
  rd_kafka_ResourceType_t resource = RD_KAFKA_RESOURCE_TOPIC;
  std::string name;       // the topic, group or "kafka-cluster"
  std::string principal;  // e.g. "User:snowcar"
  rd_kafka_AclOperation_t operation = RD_KAFKA_ACL_OPERATION_READ;
};

Status CreateAcls(const KafkaConfig& client, const std::vector<Acl>& acls,
                  std::chrono::milliseconds timeout = std::chrono::seconds(30));
// Deletes exactly these ACLs (the filter matches each one literally).
Status DeleteAcls(const KafkaConfig& client, const std::vector<Acl>& acls,
                  std::chrono::milliseconds timeout = std::chrono::seconds(30));

}  // namespace snowcar::testsupport
