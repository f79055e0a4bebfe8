// SPDX-License-Identifier: Apache-2.0
// kafka::ReadToEnd against the embedded broker: every record up to the end each partition had,
// resuming where an earlier read ended, and a clear error without bootstrap.servers.
#include "snowcar/kafka/topic_reader.h"

#include <gtest/gtest.h>

#include <set>

#include "support/broker_fixture.h"
#include "support/kafka_client.h"

namespace snowcar::kafka {
namespace {

using namespace std::chrono_literals;

class TopicReaderTest : public testsupport::EmbeddedBrokerTest {
 protected:
  broker::BrokerOptions Options() override { return {.topics = {{"orders", 3}, {"audit", 1}}}; }

  void Produce(const std::string& topic, int first, int n) {
    auto reports = testsupport::ProduceMessages(bootstrap(), topic,
                                                testsupport::NumberedMessages(first, n), 30s);
    ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  }

  TopicReadOptions Read(std::map<TopicPartition, int64_t> from = {}) {
    TopicReadOptions options;
    options.properties = {{"bootstrap.servers", bootstrap()}};
    options.topics = {"orders", "audit"};
    options.from = std::move(from);
    options.timeout = 30s;
    return options;
  }
};

TEST_F(TopicReaderTest, ReadsEveryRecordOnceAndResumesWhereItEnded) {
  Produce("orders", 0, 30);
  Produce("audit", 100, 5);
  std::multiset<std::string> keys;
  auto ends = ReadToEnd(Read(), [&](const InRecord& r) { keys.insert(r.topic + "/" + *r.key); });
  ASSERT_TRUE(ends.ok()) << ends.status().ToString();
  EXPECT_EQ(keys.size(), 35u);
  EXPECT_EQ(keys.count("orders/key-7"), 1u);
  EXPECT_EQ(keys.count("audit/key-104"), 1u);
  // One entry per partition of the asked topics; together they hold every record.
  ASSERT_EQ(ends->size(), 4u);
  int64_t total = 0;
  for (const auto& [tp, end] : *ends) total += end;
  EXPECT_EQ(total, 35);

  // Only what came after the first read.
  Produce("orders", 30, 4);
  keys.clear();
  auto later = ReadToEnd(Read(*ends), [&](const InRecord& r) { keys.insert(*r.key); });
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(keys, (std::multiset<std::string>{"key-30", "key-31", "key-32", "key-33"}));

  // Nothing new: an immediate, empty answer with the same ends.
  size_t calls = 0;
  auto again = ReadToEnd(Read(*later), [&](const InRecord&) { ++calls; });
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(*again, *later);
}

TEST_F(TopicReaderTest, MissingBootstrapIsRefused) {
  TopicReadOptions options;
  options.topics = {"orders"};
  auto ends = ReadToEnd(options, [](const InRecord&) {});
  ASSERT_FALSE(ends.ok());
  EXPECT_NE(ends.status().message().find("bootstrap.servers"), std::string::npos)
      << ends.status().message();
}

}  // namespace
}  // namespace snowcar::kafka
