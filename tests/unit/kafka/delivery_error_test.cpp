// SPDX-License-Identifier: Apache-2.0
#include "kafka/delivery_error.h"

#include <gtest/gtest.h>

namespace snowcar::kafka::internal {
namespace {

TEST(DeliveryError, ClassifiesRetriableCancelledAndPermanent) {
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR_NO_ERROR), StatusCode::kOk);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT), StatusCode::kUnavailable);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS), StatusCode::kUnavailable);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR__PURGE_QUEUE), StatusCode::kCancelled);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR__PURGE_INFLIGHT), StatusCode::kCancelled);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR__FATAL), StatusCode::kFailedPrecondition);
  EXPECT_EQ(CodeForDeliveryError(RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION), StatusCode::kInternal);
}

TEST(DeliveryError, MessageNamesTopicPartitionAndTheLibrdkafkaError) {
  const Status s = DeliveryStatus(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, "incident", 2);
  EXPECT_TRUE(s.retriable());
  EXPECT_NE(s.message().find("incident/2"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(rd_kafka_err2str(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("_MSG_TIMED_OUT"), std::string::npos) << s.message();
  const Status unplaced = DeliveryStatus(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, "t", -1);
  EXPECT_NE(unplaced.message().find("no partition"), std::string::npos) << unplaced.message();
  EXPECT_TRUE(DeliveryStatus(RD_KAFKA_RESP_ERR_NO_ERROR, "t", 0).ok());
  EXPECT_EQ(DeliveryStatus(RD_KAFKA_RESP_ERR__PURGE_QUEUE, "t", 1).code(), StatusCode::kCancelled);
}

// Refused credentials, an unverified certificate and missing ACLs are refusals the sink's health
// reports; a broker that is down, or a record that is wrong, is not one.
TEST(DeliveryError, BrokerRefusalsAreCredentialsCertificatesAndAcls) {
  for (auto err : {RD_KAFKA_RESP_ERR__AUTHENTICATION, RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED,
                   RD_KAFKA_RESP_ERR__SSL, RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED,
                   RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
                   RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED}) {
    EXPECT_TRUE(IsBrokerRefusal(err)) << rd_kafka_err2name(err);
  }
  for (auto err : {RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN, RD_KAFKA_RESP_ERR__TRANSPORT,
                   RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR__PARTITION_EOF}) {
    EXPECT_FALSE(IsBrokerRefusal(err)) << rd_kafka_err2name(err);
  }
}

}  // namespace
}  // namespace snowcar::kafka::internal
