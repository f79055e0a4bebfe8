// SPDX-License-Identifier: Apache-2.0
// An in-process Kafka cluster for tests, the demo and benchmarks: librdkafka's mock cluster.
//
// It speaks the Kafka wire protocol on 127.0.0.1 (one ephemeral port per broker), so any client
// (librdkafka, kcat, Java) can produce, consume in groups, commit offsets and run transactions
// against it. It is a mock: data lives in memory, replication is not simulated, and some broker
// behaviour differs from Apache Kafka (docs/embedded-broker.md lists what matters to us).
//
// The fault hooks exist so tests can make the broker misbehave on purpose: take a broker off the
// network, slow it down, or fail the next N requests of one kind. They are safe to call from any
// thread while clients are running; each takes effect before the call returns.
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/testbed/broker/api_key.h"
#include "snowcar/testbed/broker/broker_options.h"
#include "snowcar/testbed/broker/log_start.h"

typedef struct rd_kafka_mock_cluster_s rd_kafka_mock_cluster_t;

namespace snowcar::broker {
namespace internal {
class AdminFront;
struct TopicToCreate;
struct CreateOutcome;
}  // namespace internal

// Pass as a broker id to the hooks that accept it to mean "every broker".
inline constexpr int kAllBrokers = -1;

// One entry of a per-broker error script: answer with `error` (or success when it is
// RD_KAFKA_RESP_ERR_NO_ERROR) after holding the response for `delay_ms`.
struct ErrorWithDelay {
  rd_kafka_resp_err_t error = RD_KAFKA_RESP_ERR_NO_ERROR;
  int delay_ms = 0;
};

enum class CoordinatorKind { kGroup, kTransaction };

class EmbeddedBroker {
 public:
  // Starts the cluster and creates options.topics. Fails with InvalidArgument on bad options
  // and Internal if librdkafka cannot start the mock.
  static Result<std::unique_ptr<EmbeddedBroker>> Start(const BrokerOptions& options);

  // Closes every listener; connected clients see a disconnect.
  ~EmbeddedBroker();
  EmbeddedBroker(const EmbeddedBroker&) = delete;
  EmbeddedBroker& operator=(const EmbeddedBroker&) = delete;

  // "127.0.0.1:port,127.0.0.1:port,..." for a client's bootstrap.servers (the relay's ports
  // with create_topics_on_request).
  const std::string& bootstrap_servers() const { return bootstrap_; }
  int broker_count() const { return broker_count_; }

  // Creates a topic with exactly this layout. AlreadyExists if the name is taken. Topics a
  // producer writes to without creating them first are auto-created by the mock with its own
  // default partition count (see docs), so create them here when the count matters.
  Status CreateTopic(std::string_view name, int partitions, int replication_factor = 1);

  // --- Fault hooks ------------------------------------------------------------------------
  // Drops the broker's connections and refuses new ones (kAllBrokers for all). Partition
  // leadership does not move, so clients wait for the broker to come back.
  Status SetBrokerDown(int broker_id);
  Status SetBrokerUp(int broker_id);
  // Delays every response of the broker by `rtt_ms` (0 restores full speed).
  Status SetRtt(int broker_id, int rtt_ms);

  // The next errors.size() requests of this kind, to any broker, fail in order with these
  // errors. RD_KAFKA_RESP_ERR__TRANSPORT makes the broker drop the connection instead.
  Status PushRequestErrors(ApiKey api, const std::vector<rd_kafka_resp_err_t>& errors);
  // Forgets errors pushed with PushRequestErrors for this request kind that have not fired.
  Status ClearRequestErrors(ApiKey api);
  // Like PushRequestErrors but for one broker, with a response delay per entry. These take
  // precedence over cluster-wide errors.
  Status PushBrokerErrors(int broker_id, ApiKey api, const std::vector<ErrorWithDelay>& script);
  // How many entries of PushBrokerErrors are still waiting to fire.
  Result<size_t> PendingBrokerErrors(int broker_id, ApiKey api) const;

  // Makes `broker_id` the leader of one partition (-1: no leader, clients stall on it).
  Status SetPartitionLeader(std::string_view topic, int partition, int broker_id);
  // Pins the coordinator of a consumer group or transactional id to one broker.
  Status SetCoordinator(CoordinatorKind kind, std::string_view key, int broker_id);
  // Every Metadata answer for `topic` carries this error (NO_ERROR clears it).
  Status SetTopicError(std::string_view topic, rd_kafka_resp_err_t error);

 private:
  EmbeddedBroker() = default;
  // Answers one topic of a CreateTopics request (create_topics_on_request).
  internal::CreateOutcome CreateOnRequest(const internal::TopicToCreate& t);
  Status CheckBrokerId(int broker_id, bool allow_all, std::string_view hook) const;

  // With create_topics_on_request: the relay clients connect to (bootstrap_ names it).
  std::unique_ptr<internal::AdminFront> front_;
  // With eviction_watch_ms: reports partitions whose oldest records the mock dropped.
  std::unique_ptr<EvictionWatch> watch_;
  rd_kafka_t* host_ = nullptr;  // the handle the mock cluster lives in; sends nothing
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::string bootstrap_;
  int broker_count_ = 0;
};

}  // namespace snowcar::broker
