// SPDX-License-Identifier: Apache-2.0
// Offsets committed by a group member are kept by the cluster: a new member of the same group
// resumes after them, a member of another group starts from the beginning.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::broker {
namespace {

using namespace std::chrono_literals;
using testsupport::Message;
using testsupport::TestConsumer;

class CommittedOffsets : public testsupport::EmbeddedBrokerTest {
 protected:
  BrokerOptions Options() override { return {.brokers = 1, .topics = {{"cmds", 1, 1}}}; }
};

int Seq(const Message& m) { return std::stoi(m.Header("seq").value_or("-1")); }

TEST_F(CommittedOffsets, RestartedConsumerResumesFromCommittedOffset) {
  ASSERT_TRUE(
      testsupport::ProduceMessages(bootstrap(), "cmds", testsupport::NumberedMessages(0, 10), 30s)
          .ok());
  const std::string group = testsupport::UniqueName("lane");
  {
    auto first = TestConsumer::Create(bootstrap(), group, {"cmds"});
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    auto got = (*first)->PollCount(4, 60s);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), 4u);
    EXPECT_EQ(Seq(got->front()), 0);
    EXPECT_EQ(Seq(got->back()), 3);
    ASSERT_TRUE((*first)->Commit(*got).ok());
  }  // leaves the group

  auto second = TestConsumer::Create(bootstrap(), group, {"cmds"});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  auto rest = (*second)->PollCount(6, 60s);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  ASSERT_EQ(rest->size(), 6u);
  for (size_t i = 0; i < rest->size(); ++i) {
    EXPECT_EQ(Seq((*rest)[i]), static_cast<int>(i) + 4);
    EXPECT_EQ((*rest)[i].offset, static_cast<int64_t>(i) + 4);
  }

  // Another group has no committed offset and starts at the beginning (auto.offset.reset).
  auto other =
      testsupport::ConsumeMessages(bootstrap(), testsupport::UniqueName("other"), "cmds", 10, 60s);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(Seq(other->front()), 0);
}

TEST_F(CommittedOffsets, CommittedOffsetIsVisibleThroughTheApi) {
  ASSERT_TRUE(
      testsupport::ProduceMessages(bootstrap(), "cmds", testsupport::NumberedMessages(0, 3), 30s)
          .ok());
  const std::string group = testsupport::UniqueName("lane");
  auto c = TestConsumer::Create(bootstrap(), group, {"cmds"});
  ASSERT_TRUE(c.ok());
  auto got = (*c)->PollCount(3, 60s);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE((*c)->Commit(*got).ok());

  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, "cmds", 0);
  ASSERT_EQ(rd_kafka_committed((*c)->handle(), list, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
  EXPECT_EQ(list->elems[0].offset, 3);
  rd_kafka_topic_partition_list_destroy(list);
}

}  // namespace
}  // namespace snowcar::broker
