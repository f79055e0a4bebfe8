// SPDX-License-Identifier: Apache-2.0
// The control channel of `snowcar broker --control-stdin`: each command line reaches the right
// fault hook, and a bad line answers with what is wrong instead of doing something else.
#include "snowcar/testbed/broker/control.h"

#include <gtest/gtest.h>

#include <chrono>

#include "support/broker_fixture.h"
#include "support/kafka_client.h"

namespace snowcar::broker {
namespace {

using namespace std::chrono_literals;

TEST(ControlParse, NamesRequestKindsAndKafkaErrors) {
  EXPECT_EQ(*ParseApiKey("Produce"), ApiKey::kProduce);
  EXPECT_EQ(*ParseApiKey("OffsetCommit"), ApiKey::kOffsetCommit);
  EXPECT_FALSE(ParseApiKey("produce").ok());
  EXPECT_EQ(*ParseKafkaError("NOT_ENOUGH_REPLICAS"), RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS);
  EXPECT_EQ(*ParseKafkaError("RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT"),
            RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT);
  EXPECT_EQ(*ParseKafkaError("_TRANSPORT"), RD_KAFKA_RESP_ERR__TRANSPORT);
  EXPECT_EQ(*ParseKafkaError("7"), RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT);
  auto bad = ParseKafkaError("NO_SUCH_ERROR");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("NO_SUCH_ERROR"), std::string::npos);
}

class Control : public testsupport::EmbeddedBrokerTest {
 protected:
  BrokerOptions Options() override { return {.brokers = 1, .topics = {{"t", 1, 1}}}; }
  std::string Run(const std::string& line) {
    auto r = RunControlCommand(broker(), line);
    return r.ok() ? *r : "error: " + r.status().message();
  }
};

TEST_F(Control, EveryCommandAnswersOk) {
  EXPECT_EQ(Run("down 1"), "ok down 1");
  EXPECT_EQ(Run("up 1"), "ok up 1");
  EXPECT_EQ(Run("rtt all 0"), "ok rtt all 0");
  EXPECT_EQ(Run("errors Produce NOT_ENOUGH_REPLICAS 3"), "ok errors Produce NOT_ENOUGH_REPLICAS 3");
  EXPECT_EQ(Run("clear Produce"), "ok clear Produce");
}

TEST_F(Control, BadLinesSayWhatIsWrong) {
  EXPECT_NE(Run("").find("empty"), std::string::npos);
  EXPECT_NE(Run("explode 1").find("unknown command 'explode'"), std::string::npos);
  EXPECT_NE(Run("down").find("usage: down"), std::string::npos);
  EXPECT_NE(Run("down x").find("'x' is not a whole number"), std::string::npos);
  EXPECT_NE(Run("down 5").find('5'), std::string::npos);  // no such broker
  EXPECT_NE(Run("rtt 1 -3").find("negative"), std::string::npos);
  EXPECT_NE(Run("errors Nope X").find("unknown request kind 'Nope'"), std::string::npos);
  EXPECT_NE(Run("errors Produce NOT_ENOUGH_REPLICAS 0").find("count must be"), std::string::npos);
}

// Pushed errors really reach clients: a non-retriable one fails the delivery report.
TEST_F(Control, PushedProduceErrorReachesTheProducer) {
  ASSERT_EQ(Run("errors Produce MSG_SIZE_TOO_LARGE 1"), "ok errors Produce MSG_SIZE_TOO_LARGE 1");
  auto producer = testsupport::TestProducer::Create(bootstrap());
  ASSERT_TRUE(producer.ok());
  auto reports = (*producer)->ProduceAll("t", testsupport::NumberedMessages(0, 1), 20s);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  ASSERT_EQ(reports->size(), 1u);
  EXPECT_EQ((*reports)[0].error, RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE);
}

}  // namespace
}  // namespace snowcar::broker
