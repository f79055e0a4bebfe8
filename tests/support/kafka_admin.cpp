// SPDX-License-Identifier: Apache-2.0
#include "support/kafka_admin.h"

#include <functional>
#include <memory>
#include <optional>

namespace snowcar::testsupport {
namespace {

int Ms(std::chrono::milliseconds d) { return static_cast<int>(d.count()); }

Result<KafkaHandle> AdminHandle(const KafkaConfig& client) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  for (const auto& [k, v] : client) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return Status::InvalidArgument("kafka property '" + k + "': " + errstr);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::InvalidArgument(std::string("cannot create the admin client: ") + errstr);
  }
  return KafkaHandle(rk);
}

// Runs one admin request: `send` enqueues it on the queue it is given; `check` reads the
// answer event. The event, queue and options are freed here.
Status Call(
    const KafkaConfig& client, std::chrono::milliseconds timeout,
    const std::function<void(rd_kafka_t*, rd_kafka_AdminOptions_t*, rd_kafka_queue_t*)>& send,
    const std::function<Status(rd_kafka_event_t*)>& check) {
  SNOWCAR_ASSIGN_OR_RETURN(KafkaHandle rk, AdminHandle(client));
  char errstr[512];
  rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(rk.get(), RD_KAFKA_ADMIN_OP_ANY);
  (void)rd_kafka_AdminOptions_set_request_timeout(options, Ms(timeout), errstr, sizeof errstr);
  rd_kafka_queue_t* answers = rd_kafka_queue_new(rk.get());
  send(rk.get(), options, answers);
  rd_kafka_event_t* event = rd_kafka_queue_poll(answers, Ms(timeout) + 1000);
  Status result = Status::Ok();
  if (event == nullptr) {
    result = Status::DeadlineExceeded("no answer to the admin request");
  } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    result = Status::Unavailable(rd_kafka_event_error_string(event));
  } else {
    result = check(event);
  }
  if (event != nullptr) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(answers);
  rd_kafka_AdminOptions_destroy(options);
  return result;
}

using BindingPtr = std::unique_ptr<rd_kafka_AclBinding_t, decltype(&rd_kafka_AclBinding_destroy)>;

Result<BindingPtr> Binding(const Acl& acl) {
  char errstr[512];
  rd_kafka_AclBinding_t* b = rd_kafka_AclBinding_new(
      acl.resource, acl.name.c_str(), RD_KAFKA_RESOURCE_PATTERN_LITERAL, acl.principal.c_str(), "*",
      acl.operation, RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, errstr, sizeof errstr);
  if (b == nullptr) return Status::InvalidArgument(std::string("ACL: ") + errstr);
  return BindingPtr(b, &rd_kafka_AclBinding_destroy);
}

Result<BindingPtr> Filter(const Acl& acl) {
  char errstr[512];
  rd_kafka_AclBindingFilter_t* b = rd_kafka_AclBindingFilter_new(
      acl.resource, acl.name.c_str(), RD_KAFKA_RESOURCE_PATTERN_LITERAL, acl.principal.c_str(), "*",
      acl.operation, RD_KAFKA_ACL_PERMISSION_TYPE_ALLOW, errstr, sizeof errstr);
  if (b == nullptr) return Status::InvalidArgument(std::string("ACL filter: ") + errstr);
  return BindingPtr(b, &rd_kafka_AclBinding_destroy);
}

}  // namespace

Status CreateTopic(const KafkaConfig& client, const std::string& name, int partitions,
                   const std::map<std::string, std::string>& configs,
                   std::chrono::milliseconds timeout) {
  char errstr[512];
  rd_kafka_NewTopic_t* nt =
      rd_kafka_NewTopic_new(name.c_str(), partitions, -1, errstr, sizeof errstr);
  if (nt == nullptr) return Status::InvalidArgument("topic '" + name + "': " + errstr);
  for (const auto& [k, v] : configs) (void)rd_kafka_NewTopic_set_config(nt, k.c_str(), v.c_str());
  Status s = Call(
      client, timeout,
      [&](rd_kafka_t* rk, rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* q) {
        rd_kafka_CreateTopics(rk, &nt, 1, options, q);
      },
      [&](rd_kafka_event_t* event) {
        const auto* r = rd_kafka_event_CreateTopics_result(event);
        if (r == nullptr) return Status::Internal("not a CreateTopics answer");
        size_t n = 0;
        const rd_kafka_topic_result_t** topics = rd_kafka_CreateTopics_result_topics(r, &n);
        for (size_t i = 0; i < n; ++i) {
          const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(topics[i]);
          if (err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
            const char* why = rd_kafka_topic_result_error_string(topics[i]);
            return Status::Unavailable("create topic '" + name +
                                       "': " + (why != nullptr ? why : rd_kafka_err2str(err)));
          }
        }
        return Status::Ok();
      });
  rd_kafka_NewTopic_destroy(nt);
  return s;
}

Result<std::string> TopicConfig(const KafkaConfig& client, const std::string& topic,
                                const std::string& name, std::chrono::milliseconds timeout) {
  rd_kafka_ConfigResource_t* resource =
      rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
  std::optional<std::string> value;
  Status s = Call(
      client, timeout,
      [&](rd_kafka_t* rk, rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* q) {
        rd_kafka_DescribeConfigs(rk, &resource, 1, options, q);
      },
      [&](rd_kafka_event_t* event) {
        const auto* r = rd_kafka_event_DescribeConfigs_result(event);
        if (r == nullptr) return Status::Internal("not a DescribeConfigs answer");
        size_t n = 0;
        const rd_kafka_ConfigResource_t** resources =
            rd_kafka_DescribeConfigs_result_resources(r, &n);
        for (size_t i = 0; i < n; ++i) {
          if (rd_kafka_ConfigResource_error(resources[i]) != RD_KAFKA_RESP_ERR_NO_ERROR) {
            return Status::Unavailable("describe topic '" + topic +
                                       "': " + rd_kafka_ConfigResource_error_string(resources[i]));
          }
          size_t m = 0;
          const rd_kafka_ConfigEntry_t** entries =
              rd_kafka_ConfigResource_configs(resources[i], &m);
          for (size_t j = 0; j < m; ++j) {
            if (name == rd_kafka_ConfigEntry_name(entries[j])) {
              const char* v = rd_kafka_ConfigEntry_value(entries[j]);
              value = v != nullptr ? v : "";
            }
          }
        }
        return Status::Ok();
      });
  rd_kafka_ConfigResource_destroy(resource);
  SNOWCAR_RETURN_IF_ERROR(s);
  if (!value) return Status::NotFound("topic '" + topic + "' has no config '" + name + "'");
  return *value;
}

Status CreateAcls(const KafkaConfig& client, const std::vector<Acl>& acls,
                  std::chrono::milliseconds timeout) {
  std::vector<BindingPtr> owned;
  std::vector<rd_kafka_AclBinding_t*> bindings;
  for (const auto& acl : acls) {
    SNOWCAR_ASSIGN_OR_RETURN(BindingPtr b, Binding(acl));
    bindings.push_back(b.get());
    owned.push_back(std::move(b));
  }
  return Call(
      client, timeout,
      [&](rd_kafka_t* rk, rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* q) {
        rd_kafka_CreateAcls(rk, bindings.data(), bindings.size(), options, q);
      },
      [&](rd_kafka_event_t* event) {
        const auto* r = rd_kafka_event_CreateAcls_result(event);
        if (r == nullptr) return Status::Internal("not a CreateAcls answer");
        size_t n = 0;
        const rd_kafka_acl_result_t** results = rd_kafka_CreateAcls_result_acls(r, &n);
        for (size_t i = 0; i < n; ++i) {
          if (const rd_kafka_error_t* e = rd_kafka_acl_result_error(results[i])) {
            return Status::Unavailable(std::string("create ACL: ") + rd_kafka_error_string(e));
          }
        }
        return Status::Ok();
      });
}

Status DeleteAcls(const KafkaConfig& client, const std::vector<Acl>& acls,
                  std::chrono::milliseconds timeout) {
  std::vector<BindingPtr> owned;
  std::vector<rd_kafka_AclBindingFilter_t*> filters;
  for (const auto& acl : acls) {
    SNOWCAR_ASSIGN_OR_RETURN(BindingPtr b, Filter(acl));
    filters.push_back(b.get());
    owned.push_back(std::move(b));
  }
  return Call(
      client, timeout,
      [&](rd_kafka_t* rk, rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* q) {
        rd_kafka_DeleteAcls(rk, filters.data(), filters.size(), options, q);
      },
      [&](rd_kafka_event_t* event) {
        const auto* r = rd_kafka_event_DeleteAcls_result(event);
        if (r == nullptr) return Status::Internal("not a DeleteAcls answer");
        size_t n = 0;
        const rd_kafka_DeleteAcls_result_response_t** responses =
            rd_kafka_DeleteAcls_result_responses(r, &n);
        for (size_t i = 0; i < n; ++i) {
          if (const rd_kafka_error_t* e = rd_kafka_DeleteAcls_result_response_error(responses[i])) {
            return Status::Unavailable(std::string("delete ACL: ") + rd_kafka_error_string(e));
          }
        }
        return Status::Ok();
      });
}

}  // namespace snowcar::testsupport
