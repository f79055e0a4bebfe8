// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/topic_admin.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstdint>
#include <thread>

#include "client_config.h"

namespace snowcar::kafka {
namespace {

using Clock = std::chrono::steady_clock;

int Ms(Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 1, INT32_MAX));
}

std::string Count(int32_t n, std::string_view what, std::string_view broker_key) {
  if (n < 0) return std::string(what) + " from the broker's " + std::string(broker_key);
  return std::string(what) + " " + std::to_string(n);
}

}  // namespace

std::string DescribeSpec(const NewTopicSpec& spec) {
  std::string out =
      Count(spec.partitions, "partitions", "num.partitions") + ", " +
      Count(spec.replication_factor, "replication factor", "default.replication.factor");
  for (const auto& [name, value] : spec.configs) {
    out += ", ";
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

struct TopicAdmin::Impl {
  rd_kafka_t* rk = nullptr;
  ~Impl() {
    if (rk != nullptr) rd_kafka_destroy(rk);
  }

  // Whether the cluster knows `topic`. Asks for every topic rather than this one: naming it
  // would let a broker with auto.create.topics.enable create it with its own defaults.
  Result<bool> Exists(const std::string& topic, Clock::time_point deadline) {
    const rd_kafka_metadata_t* md = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 1, nullptr, &md, Ms(deadline));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::Unavailable("metadata for topic '" + topic + "': " + rd_kafka_err2str(err));
    }
    bool found = false;
    for (int i = 0; i < md->topic_cnt; ++i) {
      found = found ||
              (topic == md->topics[i].topic && md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR &&
               md->topics[i].partition_cnt > 0);
    }
    rd_kafka_metadata_destroy(md);
    return found;
  }

  // The CreateTopics answer for `spec`: Ok also when another client created it meanwhile.
  Status Create(const NewTopicSpec& spec, Clock::time_point deadline) {
    char errstr[512];
    rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(spec.name.c_str(), spec.partitions,
                                                    spec.replication_factor, errstr, sizeof errstr);
    if (nt == nullptr) return Status::FailedPrecondition(errstr);
    for (const auto& [name, value] : spec.configs) {
      (void)rd_kafka_NewTopic_set_config(nt, name.c_str(), value.c_str());
    }
    rd_kafka_AdminOptions_t* options =
        rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    (void)rd_kafka_AdminOptions_set_request_timeout(options, Ms(deadline), errstr, sizeof errstr);
    // Wait for the controller to finish, so the topic is usable when the call returns.
    (void)rd_kafka_AdminOptions_set_operation_timeout(options, Ms(deadline), errstr, sizeof errstr);
    rd_kafka_queue_t* answers = rd_kafka_queue_new(rk);
    rd_kafka_CreateTopics(rk, &nt, 1, options, answers);
    rd_kafka_event_t* event = rd_kafka_queue_poll(answers, Ms(deadline) + 1000);
    Status result = Status::Ok();
    if (event == nullptr) {
      result = Status::DeadlineExceeded("no answer to CreateTopics");
    } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      result = Status::Unavailable(internal::Clean(rd_kafka_event_error_string(event)));
    } else if (const rd_kafka_CreateTopics_result_t* r =
                   rd_kafka_event_CreateTopics_result(event)) {
      size_t n = 0;
      const rd_kafka_topic_result_t** topics = rd_kafka_CreateTopics_result_topics(r, &n);
      for (size_t i = 0; i < n; ++i) result = Classify(topics[i]);
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_queue_destroy(answers);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_NewTopic_destroy(nt);
    return result;
  }

  static Status Classify(const rd_kafka_topic_result_t* topic) {
    const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(topic);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR || err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      return Status::Ok();
    }
    const char* why = rd_kafka_topic_result_error_string(topic);
    std::string text = rd_kafka_err2name(err);
    if (why != nullptr && *why != '\0') text += ": " + internal::Clean(why);
    switch (err) {
      case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
      case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
        return Status::PermissionDenied(text);
      case RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
      case RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR:
      case RD_KAFKA_RESP_ERR_INVALID_PARTITIONS:
      case RD_KAFKA_RESP_ERR_INVALID_CONFIG:
      case RD_KAFKA_RESP_ERR_INVALID_REQUEST:
      case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
        return Status::FailedPrecondition(text);
      default:
        return Status::Unavailable(text);
    }
  }
};

TopicAdmin::TopicAdmin(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TopicAdmin::~TopicAdmin() = default;

Result<std::unique_ptr<TopicAdmin>> TopicAdmin::Create(
    const std::map<std::string, std::string>& properties) {
  auto merged = internal::MergeProperties(
      properties, {{"client.id", internal::ClientId(properties, "snowcar-topic-admin")}},
      internal::ClientKind::kProducer, internal::Dropped::kQuiet);
  // An admin handle produces nothing: no transactions, no idempotent producer id to fetch.
  merged.erase("transactional.id");
  merged["enable.idempotence"] = "false";
  SNOWCAR_ASSIGN_OR_RETURN(internal::ConfPtr conf, internal::BuildConf(merged));
  internal::RouteLogs(conf.get());
  auto impl = std::make_unique<Impl>();
  char errstr[512];
  impl->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), errstr, sizeof errstr);
  if (impl->rk == nullptr) {
    return Status::InvalidArgument("cannot create the topic admin client: " +
                                   internal::Clean(errstr));
  }
  (void)conf.release();  // rd_kafka_new took it
  return std::unique_ptr<TopicAdmin>(new TopicAdmin(std::move(impl)));
}

Result<TopicAdmin::Outcome> TopicAdmin::Ensure(const NewTopicSpec& spec,
                                               std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  SNOWCAR_ASSIGN_OR_RETURN(bool exists, impl_->Exists(spec.name, deadline));
  if (exists) return Outcome::kExisted;
  const Status created = impl_->Create(spec, deadline);
  if (!created.ok()) {
    const std::string how = "topic '" + spec.name + "' does not exist and creating it (" +
                            DescribeSpec(spec) + ", topic.creation group '" + spec.group +
                            "') failed: " + created.message();
    if (created.code() == StatusCode::kPermissionDenied) {
      return Status::PermissionDenied(how +
                                      "; grant Create on the topic (or the cluster) to "
                                      "snowcar's principal, or create the topic beforehand");
    }
    return Status(created.code(), how);
  }
  // The answer comes from the controller; brokers learn of the topic a moment later.
  while (Clock::now() < deadline) {
    SNOWCAR_ASSIGN_OR_RETURN(exists, impl_->Exists(spec.name, deadline));
    if (exists) return Outcome::kCreated;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::DeadlineExceeded("topic '" + spec.name +
                                  "' was created but does not show in the metadata yet");
}

}  // namespace snowcar::kafka
