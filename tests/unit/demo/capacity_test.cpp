// SPDX-License-Identifier: Apache-2.0
// The demo says when the embedded broker's 5 MiB per partition runs out, and its census
// counts what the broker dropped instead of waiting for it.
#include "demo/capacity.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "demo/kafka.h"
#include "snowcar/testbed/broker/log_start.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"

namespace snowcar::demo {
namespace {

using namespace std::chrono_literals;

TEST(DemoCapacity, EstimatesWhenASourceTopicReachesTheCap) {
  const Options defaults;
  // 3 666 records a partition; 334 from the first load; 20 rows/s over 3 tables x 3 partitions.
  EXPECT_EQ(SecondsUntilCap(defaults), 1499);
  EXPECT_NE(CapNotice(defaults).find("after about 24 min"), std::string::npos)
      << CapNotice(defaults);

  Options big;
  big.rows = 16000;  // 5 334 a partition on the first load
  EXPECT_EQ(SecondsUntilCap(big), 0);
  EXPECT_NE(CapNotice(big).find("already with the first load"), std::string::npos);

  Options fast = defaults;
  fast.rate = 10'000;
  EXPECT_EQ(SecondsUntilCap(fast), 2);
  EXPECT_NE(CapNotice(fast).find("after about 1 min"), std::string::npos) << CapNotice(fast);
}

TEST(DemoCapacity, DroppedNoteOnlyWhenSomethingWasDropped) {
  EXPECT_EQ(DroppedNote(0), "");
  EXPECT_EQ(DroppedNote(5001),
            "; the broker had dropped the oldest 5001 (its 5 MiB per partition cap), which are not "
            "counted");
}

class DemoCensus : public testsupport::EmbeddedBrokerTest {
  broker::BrokerOptions Options() override { return {.topics = {{"snow.incident", 1}}}; }
};

// A census resuming from an offset the broker has dropped since reads from the first offset
// held (it used to wait out its deadline for records that never came) and counts the drop.
TEST_F(DemoCensus, ResumesPastRecordsTheBrokerDropped) {
  auto producer = testsupport::TestProducer::Create(
      bootstrap(), {{"linger.ms", "0"}, {"batch.num.messages", "1"}});
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  std::vector<testsupport::OutMessage> messages(60);
  for (auto& m : messages) m.value = std::string(size_t{100} * 1024, 'x');
  ASSERT_TRUE((*producer)->ProduceAll("snow.incident", messages, 60s).ok());

  auto reader = broker::LogStartReader::Create(bootstrap());
  ASSERT_TRUE(reader.ok());
  auto extents = (*reader)->Read("snow.incident", 10s);
  ASSERT_TRUE(extents.ok()) << extents.status().ToString();
  const int64_t first = extents->at(0).log_start;
  ASSERT_GT(first, 0);

  auto census = TakeCensus(bootstrap(), {"snow.incident"}, {{{"snow.incident", 0}, 2}}, 20s);
  ASSERT_TRUE(census.ok()) << census.status().ToString();
  EXPECT_EQ(census->records, 60 - first);
  EXPECT_EQ(census->dropped, first);
  EXPECT_EQ(census->dropped_per_topic.at("snow.incident"), first);
  EXPECT_EQ(census->end_offsets.at({"snow.incident", 0}), 60);
}

}  // namespace
}  // namespace snowcar::demo
