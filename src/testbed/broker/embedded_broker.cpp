// SPDX-License-Identifier: Apache-2.0
// The mock cluster lives inside an rd_kafka_t handle of its own (a producer with no bootstrap
// servers, so it never talks to anything). We create the cluster explicitly with
// rd_kafka_mock_cluster_new rather than setting `test.mock.num.brokers` on that handle: the
// explicit form gives us the cluster pointer directly, lets us destroy the cluster before the
// handle (listeners close first, in a known order), and keeps the choice of broker count out of
// a client configuration string.
#include "snowcar/testbed/broker/embedded_broker.h"

#include <librdkafka/rdkafka_mock.h>

#include <string>
#include <vector>

#include "admin_front.h"
#include "snowcar/common/log.h"

namespace snowcar::broker {
namespace {

// librdkafka's own log lines from the host handle, kept at debug level: the handle has no
// bootstrap servers on purpose, and its complaints about that are noise.
void HostLogger(const rd_kafka_t* /*rk*/, int level, const char* fac, const char* buf) {
  SNOWCAR_LOG(kDebug, "broker.librdkafka",
              {{"syslog_level", level}, {"facility", fac}, {"message", buf}});
}

Status FromKafka(rd_kafka_resp_err_t err, std::string_view what) {
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return Status::Ok();
  std::string msg = std::string(what) + ": " + rd_kafka_err2str(err);
  switch (err) {
    case RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS:
      return Status::AlreadyExists(std::move(msg));
    case RD_KAFKA_RESP_ERR__UNKNOWN_BROKER:
    case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:
    case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:
      return Status::NotFound(std::move(msg));
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
    case RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR:
      return Status::InvalidArgument(std::move(msg));
    default:
      return Status::Internal(std::move(msg));
  }
}

// The ports of "127.0.0.1:p1,127.0.0.1:p2,...", in order (the mock lists its brokers by id).
std::vector<uint16_t> PortsOf(const std::string& bootstrap) {
  std::vector<uint16_t> ports;
  size_t start = 0;
  while (start < bootstrap.size()) {
    size_t end = bootstrap.find(',', start);
    if (end == std::string::npos) end = bootstrap.size();
    const std::string item = bootstrap.substr(start, end - start);
    const size_t colon = item.rfind(':');
    if (colon != std::string::npos) {
      ports.push_back(static_cast<uint16_t>(std::stoul(item.substr(colon + 1))));
    }
    start = end + 1;
  }
  return ports;
}

}  // namespace

Result<std::unique_ptr<EmbeddedBroker>> EmbeddedBroker::Start(const BrokerOptions& options) {
  SNOWCAR_RETURN_IF_ERROR(Validate(options));

  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, HostLogger);
  if (rd_kafka_conf_set(conf, "client.id", "snowcar-embedded-broker", errstr, sizeof errstr) !=
      RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("embedded broker: host handle config: ") + errstr);
  }
  // Takes ownership of conf on success only.
  rd_kafka_t* host = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (host == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("embedded broker: cannot create host handle: ") + errstr);
  }

  std::unique_ptr<EmbeddedBroker> broker(new EmbeddedBroker());
  broker->host_ = host;
  broker->cluster_ = rd_kafka_mock_cluster_new(host, options.brokers);
  if (broker->cluster_ == nullptr) {
    return Status::Internal("embedded broker: librdkafka could not start a mock cluster of " +
                            std::to_string(options.brokers) + " brokers");
  }
  broker->broker_count_ = options.brokers;
  broker->bootstrap_ = rd_kafka_mock_cluster_bootstraps(broker->cluster_);

  for (const TopicSpec& t : options.topics) {
    SNOWCAR_RETURN_IF_ERROR(broker->CreateTopic(t.name, t.partitions, t.replication_factor));
  }
  if (options.eviction_watch_ms > 0) {
    // Straight to the mock: the relay's clients need not see the watch's requests.
    SNOWCAR_ASSIGN_OR_RETURN(
        broker->watch_, EvictionWatch::Start(broker->bootstrap_,
                                             std::chrono::milliseconds(options.eviction_watch_ms)));
  }
  if (options.create_topics_on_request) {
    EmbeddedBroker* raw = broker.get();
    SNOWCAR_ASSIGN_OR_RETURN(broker->front_,
                             internal::AdminFront::Start(PortsOf(broker->bootstrap_),
                                                         [raw](const internal::TopicToCreate& t) {
                                                           return raw->CreateOnRequest(t);
                                                         }));
    broker->bootstrap_ = broker->front_->bootstrap();
  }
  SNOWCAR_LOG(kInfo, "broker.started",
              {{"brokers", options.brokers},
               {"bootstrap_servers", broker->bootstrap_},
               {"topics", options.topics.size()},
               {"create_topics_on_request", options.create_topics_on_request},
               {"eviction_watch_ms", options.eviction_watch_ms}});
  return broker;
}

EmbeddedBroker::~EmbeddedBroker() {
  watch_.reset();  // its client talks to the cluster
  front_.reset();  // the relay first: it may be creating a topic in the cluster
  // Takes from a few ms up to ~1 s: in librdkafka 2.0.2 an internal thread of the host handle
  // notices the stop only on its next one-second tick, and nothing public can wake it.
  if (cluster_ != nullptr) rd_kafka_mock_cluster_destroy(cluster_);
  if (host_ != nullptr) rd_kafka_destroy(host_);
}

Status EmbeddedBroker::CheckBrokerId(int broker_id, bool allow_all, std::string_view hook) const {
  if (allow_all && broker_id == kAllBrokers) return Status::Ok();
  if (broker_id >= 1 && broker_id <= broker_count_) return Status::Ok();
  return Status::InvalidArgument(std::string(hook) + ": broker id " + std::to_string(broker_id) +
                                 " does not exist (ids are 1.." + std::to_string(broker_count_) +
                                 (allow_all ? ", or -1 for all" : "") + ")");
}

Status EmbeddedBroker::CreateTopic(std::string_view name, int partitions, int replication_factor) {
  BrokerOptions one;
  one.brokers = broker_count_;
  one.topics.push_back({std::string(name), partitions, replication_factor});
  SNOWCAR_RETURN_IF_ERROR(Validate(one));
  const std::string topic(name);
  return FromKafka(
      rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, replication_factor),
      "create topic '" + topic + "'");
}

// A CreateTopics request as Apache Kafka would judge it, with its defaults (num.partitions
// and default.replication.factor are 1). The mock keeps no topic configuration, so configs
// such as cleanup.policy=compact are accepted and have no effect.
internal::CreateOutcome EmbeddedBroker::CreateOnRequest(const internal::TopicToCreate& t) {
  if (Status s = ValidateTopicName(t.name); !s.ok()) {
    return {internal::kErrInvalidTopic, s.message()};
  }
  const int partitions = t.assigned_partitions > 0 ? t.assigned_partitions
                         : t.partitions == -1      ? 1
                                                   : t.partitions;
  const int replication = t.replication_factor == -1 ? 1 : t.replication_factor;
  BrokerOptions check;
  check.brokers = broker_count_;
  check.topics.push_back({t.name, partitions, replication});
  if (Status s = Validate(check); !s.ok()) {
    const bool partitions_bad =
        partitions < 1 || s.message().find("partition") != std::string::npos;
    return {
        partitions_bad ? internal::kErrInvalidPartitions : internal::kErrInvalidReplicationFactor,
        s.message()};
  }
  if (t.validate_only) return {};
  const Status created = CreateTopic(t.name, partitions, replication);
  if (created.code() == StatusCode::kAlreadyExists) {
    return {internal::kErrTopicAlreadyExists, "topic '" + t.name + "' already exists"};
  }
  if (!created.ok()) return {internal::kErrInvalidRequest, created.message()};
  SNOWCAR_LOG(kInfo, "broker.topic_created",
              {{"topic", t.name}, {"partitions", partitions}, {"replication", replication}});
  return {};
}

Status EmbeddedBroker::SetBrokerDown(int broker_id) {
  SNOWCAR_RETURN_IF_ERROR(CheckBrokerId(broker_id, true, "SetBrokerDown"));
  SNOWCAR_LOG(kInfo, "broker.fault.down", {{"broker_id", broker_id}});
  return FromKafka(rd_kafka_mock_broker_set_down(cluster_, broker_id), "SetBrokerDown");
}

Status EmbeddedBroker::SetBrokerUp(int broker_id) {
  SNOWCAR_RETURN_IF_ERROR(CheckBrokerId(broker_id, true, "SetBrokerUp"));
  SNOWCAR_LOG(kInfo, "broker.fault.up", {{"broker_id", broker_id}});
  return FromKafka(rd_kafka_mock_broker_set_up(cluster_, broker_id), "SetBrokerUp");
}

Status EmbeddedBroker::SetRtt(int broker_id, int rtt_ms) {
  SNOWCAR_RETURN_IF_ERROR(CheckBrokerId(broker_id, true, "SetRtt"));
  if (rtt_ms < 0) {
    return Status::InvalidArgument("SetRtt: rtt " + std::to_string(rtt_ms) + " ms is negative");
  }
  SNOWCAR_LOG(kInfo, "broker.fault.rtt", {{"broker_id", broker_id}, {"rtt_ms", rtt_ms}});
  return FromKafka(rd_kafka_mock_broker_set_rtt(cluster_, broker_id, rtt_ms), "SetRtt");
}

Status EmbeddedBroker::PushRequestErrors(ApiKey api,
                                         const std::vector<rd_kafka_resp_err_t>& errors) {
  if (errors.empty()) return Status::Ok();
  SNOWCAR_LOG(kInfo, "broker.fault.request_errors",
              {{"api", ApiKeyName(api)}, {"count", errors.size()}});
  rd_kafka_mock_push_request_errors_array(cluster_, static_cast<int16_t>(api), errors.size(),
                                          errors.data());
  return Status::Ok();
}

Status EmbeddedBroker::ClearRequestErrors(ApiKey api) {
  rd_kafka_mock_clear_request_errors(cluster_, static_cast<int16_t>(api));
  return Status::Ok();
}

Status EmbeddedBroker::PushBrokerErrors(int broker_id, ApiKey api,
                                        const std::vector<ErrorWithDelay>& script) {
  SNOWCAR_RETURN_IF_ERROR(CheckBrokerId(broker_id, false, "PushBrokerErrors"));
  for (const ErrorWithDelay& e : script) {
    if (e.delay_ms < 0) {
      return Status::InvalidArgument("PushBrokerErrors: delay " + std::to_string(e.delay_ms) +
                                     " ms is negative");
    }
  }
  SNOWCAR_LOG(kInfo, "broker.fault.broker_errors",
              {{"broker_id", broker_id}, {"api", ApiKeyName(api)}, {"count", script.size()}});
  // The C API only takes a va-arg list; one entry per call keeps the order and works for any
  // script length.
  for (const ErrorWithDelay& e : script) {
    SNOWCAR_RETURN_IF_ERROR(
        FromKafka(rd_kafka_mock_broker_push_request_error_rtts(
                      cluster_, broker_id, static_cast<int16_t>(api), 1, e.error, e.delay_ms),
                  "PushBrokerErrors"));
  }
  return Status::Ok();
}

Result<size_t> EmbeddedBroker::PendingBrokerErrors(int broker_id, ApiKey api) const {
  SNOWCAR_RETURN_IF_ERROR(CheckBrokerId(broker_id, false, "PendingBrokerErrors"));
  size_t count = 0;
  SNOWCAR_RETURN_IF_ERROR(FromKafka(
      rd_kafka_mock_broker_error_stack_cnt(cluster_, broker_id, static_cast<int16_t>(api), &count),
      "PendingBrokerErrors"));
  return count;
}

Status EmbeddedBroker::SetPartitionLeader(std::string_view topic, int partition, int broker_id) {
  if (broker_id != -1) {
    SNOWCAR_RETURN_IF_ERROR(CheckBrokerId(broker_id, false, "SetPartitionLeader"));
  }
  SNOWCAR_RETURN_IF_ERROR(ValidateTopicName(topic));
  if (partition < 0) {
    return Status::InvalidArgument("SetPartitionLeader: partition " + std::to_string(partition) +
                                   " is negative");
  }
  const std::string t(topic);
  return FromKafka(rd_kafka_mock_partition_set_leader(cluster_, t.c_str(), partition, broker_id),
                   "SetPartitionLeader");
}

Status EmbeddedBroker::SetCoordinator(CoordinatorKind kind, std::string_view key, int broker_id) {
  SNOWCAR_RETURN_IF_ERROR(CheckBrokerId(broker_id, false, "SetCoordinator"));
  if (key.empty()) return Status::InvalidArgument("SetCoordinator: key is empty");
  const std::string k(key);
  const char* type = kind == CoordinatorKind::kGroup ? "group" : "transaction";
  return FromKafka(rd_kafka_mock_coordinator_set(cluster_, type, k.c_str(), broker_id),
                   "SetCoordinator");
}

Status EmbeddedBroker::SetTopicError(std::string_view topic, rd_kafka_resp_err_t error) {
  SNOWCAR_RETURN_IF_ERROR(ValidateTopicName(topic));
  const std::string t(topic);
  rd_kafka_mock_topic_set_error(cluster_, t.c_str(), error);
  return Status::Ok();
}

}  // namespace snowcar::broker
