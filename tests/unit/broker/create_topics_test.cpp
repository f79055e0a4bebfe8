// SPDX-License-Identifier: Apache-2.0
// The embedded broker answering CreateTopics (create_topics_on_request): the Admin API of a
// real librdkafka client creates topics with the layout it asked for, refuses what Apache
// Kafka refuses, and everything else still works through the relay. Without the option the
// mock keeps its limitation, which a test pins so the option's reason stays visible.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "snowcar/testbed/broker/embedded_broker.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::broker {
namespace {

using namespace std::chrono_literals;
using testsupport::PartitionCount;

struct Created {
  rd_kafka_resp_err_t request_error = RD_KAFKA_RESP_ERR_NO_ERROR;  // the whole request
  std::string request_message;
  rd_kafka_resp_err_t topic_error = RD_KAFKA_RESP_ERR_NO_ERROR;  // the one topic
  std::string topic_message;
};

// One CreateTopics call through librdkafka's Admin API, as the source group makes it.
Created CreateTopic(const std::string& bootstrap, const std::string& name, int partitions,
                    bool compacted = false, int timeout_ms = 5000) {
  Created out;
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == nullptr) {
    out.request_error = RD_KAFKA_RESP_ERR__FAIL;
    out.request_message = err;
    return out;
  }
  rd_kafka_NewTopic_t* topic = rd_kafka_NewTopic_new(name.c_str(), partitions, -1, err, sizeof err);
  if (compacted) rd_kafka_NewTopic_set_config(topic, "cleanup.policy", "compact");
  rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
  rd_kafka_AdminOptions_set_request_timeout(options, timeout_ms, err, sizeof err);
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &topic, 1, options, queue);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, 15000);
  if (event == nullptr) {
    out.request_error = RD_KAFKA_RESP_ERR__TIMED_OUT;
  } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    out.request_error = rd_kafka_event_error(event);
    out.request_message = rd_kafka_event_error_string(event);
  } else if (const auto* result = rd_kafka_event_CreateTopics_result(event)) {
    size_t n = 0;
    const rd_kafka_topic_result_t** topics = rd_kafka_CreateTopics_result_topics(result, &n);
    if (n == 1) {
      out.topic_error = rd_kafka_topic_result_error(topics[0]);
      const char* why = rd_kafka_topic_result_error_string(topics[0]);
      out.topic_message = why != nullptr ? why : "";
    }
  }
  if (event != nullptr) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  rd_kafka_AdminOptions_destroy(options);
  rd_kafka_NewTopic_destroy(topic);
  rd_kafka_destroy(rk);
  return out;
}

TEST(CreateTopicsOnRequest, TheAdminApiCreatesTopicsWithTheAskedLayout) {
  auto started = EmbeddedBroker::Start({.brokers = 1, .create_topics_on_request = true});
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  const std::string bootstrap = (*started)->bootstrap_servers();

  Created made = CreateTopic(bootstrap, "group.tables", 3);
  ASSERT_EQ(made.request_error, RD_KAFKA_RESP_ERR_NO_ERROR) << made.request_message;
  EXPECT_EQ(made.topic_error, RD_KAFKA_RESP_ERR_NO_ERROR) << made.topic_message;
  Created compacted = CreateTopic(bootstrap, "group.state", 3, /*compacted=*/true);
  EXPECT_EQ(compacted.topic_error, RD_KAFKA_RESP_ERR_NO_ERROR) << compacted.topic_message;
  auto count = PartitionCount(bootstrap, "group.tables", 10s);
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, 3);

  Created again = CreateTopic(bootstrap, "group.tables", 3);
  EXPECT_EQ(again.topic_error, RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) << again.topic_message;
  Created too_many = CreateTopic(bootstrap, "huge", 5000);
  EXPECT_EQ(too_many.topic_error, RD_KAFKA_RESP_ERR_INVALID_PARTITIONS) << too_many.topic_message;
  EXPECT_NE(too_many.topic_message.find("5000"), std::string::npos) << too_many.topic_message;

  // The created topic carries data like any other, through the same relay.
  auto produced = testsupport::ProduceMessages(bootstrap, "group.tables",
                                               testsupport::NumberedMessages(0, 5), 10s);
  ASSERT_TRUE(produced.ok()) << produced.status().ToString();
  auto consumed =
      testsupport::ConsumeMessages(bootstrap, testsupport::UniqueName("g"), "group.tables", 5, 30s);
  ASSERT_TRUE(consumed.ok()) << consumed.status().ToString();
  EXPECT_EQ(consumed->size(), 5u);
}

TEST(CreateTopicsOnRequest, EveryBrokerOfAClusterAnswersAndFaultHooksStillBite) {
  auto started = EmbeddedBroker::Start({.brokers = 3, .create_topics_on_request = true});
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  EmbeddedBroker& b = **started;
  Created made = CreateTopic(b.bootstrap_servers(), "spread", 6);
  ASSERT_EQ(made.request_error, RD_KAFKA_RESP_ERR_NO_ERROR) << made.request_message;
  ASSERT_EQ(made.topic_error, RD_KAFKA_RESP_ERR_NO_ERROR) << made.topic_message;
  // Bootstrapping from any single address shows it: metadata names the relay's ports.
  std::string rest = b.bootstrap_servers();
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string one = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    auto n = PartitionCount(one, "spread", 10s);
    ASSERT_TRUE(n.ok()) << one << ": " << n.status().ToString();
    EXPECT_EQ(*n, 6);
  }
  // A broker taken down is down for clients of the relay too.
  ASSERT_TRUE(b.SetBrokerDown(kAllBrokers).ok());
  EXPECT_FALSE(PartitionCount(b.bootstrap_servers(), "spread", 2s).ok());
  ASSERT_TRUE(b.SetBrokerUp(kAllBrokers).ok());
  EXPECT_TRUE(testsupport::WaitFor(
      [&] { return PartitionCount(b.bootstrap_servers(), "spread", 2s).ok(); }, 20s));
}

// librdkafka 2.0.2's mock names no controller and has no CreateTopics: without the relay the
// Admin API never gets an answer. If an upgrade changes that, the relay may be unnecessary.
TEST(CreateTopicsOnRequest, TheBareMockCannotCreateTopics) {
  auto started = EmbeddedBroker::Start({.brokers = 1});
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  Created made = CreateTopic((*started)->bootstrap_servers(), "nope", 1, false, 2000);
  EXPECT_NE(made.request_error, RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_NE(made.request_message.find("controller"), std::string::npos) << made.request_message;
}

}  // namespace
}  // namespace snowcar::broker
