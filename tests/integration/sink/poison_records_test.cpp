// SPDX-License-Identifier: Apache-2.0
// Poison records (issue #7, bad input): records that cannot become a valid command, mixed
// with good commands in one partition. Each poison record must reach the DLQ with a reason
// naming what is wrong; the good ones after it are applied in order (the lane never blocks);
// the committed offset passes all of them; no request to the instance carries a path that
// climbs out of the table API.
#include <algorithm>
#include <string>
#include <vector>

#include "sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

// Over the 4 MiB a command may carry (kMaxCommandValueBytes), and over the DLQ producer's
// message.max.bytes. Not the 5 MiB one might pick: the mock broker trims a partition's log
// to 5 MiB, which would drop the records around it before the sink reads them.
constexpr size_t kHugeValueBytes = size_t{9} << 19;  // 4.5 MiB

// One record of the mixed stream and, for a poison one, what its DLQ reason must mention.
struct Step {
  testsupport::OutMessage message;
  std::string reason;  // empty for a good command
};

testsupport::OutMessage Record(std::optional<std::string> key, std::optional<std::string> value,
                               testsupport::Headers headers) {
  testsupport::OutMessage m;
  m.key = std::move(key);
  m.value = std::move(value);
  m.partition = 0;
  m.headers = std::move(headers);
  return m;
}

testsupport::Headers To(const std::string& table) { return {{"snow.table", table}}; }

std::string DescText(const std::string& text) {
  return boost::json::serialize(boost::json::object{{"short_description", text}});
}

Step Good(int n) {
  return {Record(SysId(n), DescText("good-" + std::to_string(n)), To(kTable)), ""};
}

std::vector<Step> MixedStream() {
  std::string huge = "{\"short_description\":\"" + std::string(kHugeValueBytes, 'x') + "\"}";
  return {
      Good(0),
      {Record(SysId(1), "not json {", To(kTable)), "JSON"},
      Good(1),
      {Record(std::nullopt, R"({"sys_id":12345,"short_description":"n"})", To(kTable)), "sys_id"},
      {Record(SysId(2), R"({"short_description":["a","b"]})", To(kTable)), "short_description"},
      Good(2),
      {Record(SysId(3), std::move(huge), To(kTable)), "bytes"},
      Good(3),
      {Record("not-a-sys-id", DescText("bad id"), To(kTable)), "not-a-sys-id"},
      {Record(SysId(4), DescText("t1"), To("../sys_user")), "../sys_user"},
      {Record(SysId(4), DescText("t2"), To("incident/../../x")), "incident/../../x"},
      {Record(SysId(4), DescText("t3"), To("%2e%2e")), "%2e%2e"},
      {Record(SysId(4), DescText("op"), {{"snow.table", kTable}, {"snow.operation", "FROBNICATE"}}),
       "FROBNICATE"},
      {Record("", DescText("empty key"), {{"snow.table", kTable}, {"snow.operation", "PATCH"}}),
       "sys_id"},
      Good(4),
  };
}

TEST_F(SinkIntegrationTest, PoisonRecordsGoToTheDlqAndTheLaneGoesOn) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  for (int i = 0; i <= 4; ++i) Seed(SysId(i), {{"short_description", "start"}});
  auto sink = StartSink(topic, group,
                        {"snow.sink.routing.mode=header",
                         std::string("snow.sink.table.allowlist=") + kTable + ",sys_user",
                         "behavior.on.api.errors=log", "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);

  const std::vector<Step> steps = MixedStream();
  std::vector<testsupport::OutMessage> messages;
  messages.reserve(steps.size());
  for (const auto& s : steps) messages.push_back(s.message);
  // The test's producer must be able to send the huge record at all.
  auto producer =
      testsupport::TestProducer::Create(bootstrap(), {{"message.max.bytes", "16000000"}});
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  auto reports = (*producer)->ProduceAll(topic, messages, 30s);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  for (const auto& r : *reports) ASSERT_EQ(r.error, RD_KAFKA_RESP_ERR_NO_ERROR);

  const auto poison =
      std::count_if(steps.begin(), steps.end(), [](const Step& s) { return !s.reason.empty(); });
  ASSERT_TRUE(
      WaitFor([&] { return Committed(group, topic, 1)[0] == int64_t(steps.size()); }, 60s, 100ms))
      << "committed " << Committed(group, topic, 1)[0] << " of " << steps.size() << "\n"
      << Tail(sink);
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), poison);

  // Every poison record is in the DLQ, in order, with a reason naming what is wrong.
  auto dead = ReadTopic(dlq, static_cast<size_t>(poison));
  ASSERT_EQ(dead.size(), static_cast<size_t>(poison));
  size_t d = 0;
  for (size_t offset = 0; offset < steps.size(); ++offset) {
    if (steps[offset].reason.empty()) continue;
    const auto& rec = dead[d++];
    SCOPED_TRACE("DLQ record for offset " + std::to_string(offset));
    EXPECT_EQ(rec.Header("__connect.errors.offset"), std::to_string(offset));
    EXPECT_EQ(rec.Header("snow.error.class"), "RECORD_ERROR");
    const auto reason = rec.Header("snow.error.message");
    ASSERT_TRUE(reason.has_value());
    EXPECT_NE(reason->find(steps[offset].reason), std::string::npos) << *reason;
    EXPECT_EQ(rec.key, steps[offset].message.key);
    if (steps[offset].message.value->size() > kHugeValueBytes / 2) {
      // Too large for the sink's producer: dead-lettered without its value, saying so.
      EXPECT_FALSE(rec.value.has_value());
      const auto dropped = rec.Header("snow.error.value.dropped");
      ASSERT_TRUE(dropped.has_value());
      EXPECT_NE(dropped->find(std::to_string(steps[offset].message.value->size()) + " bytes"),
                std::string::npos)
          << *dropped;
    } else {
      EXPECT_EQ(rec.value, steps[offset].message.value) << "the original value";
      EXPECT_FALSE(rec.Header("snow.error.value.dropped").has_value());
    }
  }

  // The good commands were applied, each exactly once, in offset order.
  for (int i = 0; i <= 4; ++i) {
    EXPECT_EQ(Row(SysId(i))->at("short_description"), "good-" + std::to_string(i));
  }
  std::vector<std::string> writes;
  for (const auto& e : Journal()) {
    EXPECT_EQ(e.target.find(".."), std::string::npos) << e.target;
    EXPECT_EQ(e.target.find("%2e"), std::string::npos) << e.target;
    EXPECT_EQ(e.target.find("%2E"), std::string::npos) << e.target;
    EXPECT_EQ(e.target.find("sys_user"), std::string::npos) << e.target;
    if (e.method == "PATCH") writes.push_back(e.target.substr(0, e.target.find('?')));
  }
  std::vector<std::string> expected;
  for (int i = 0; i <= 4; ++i) {
    expected.push_back(std::string("/api/now/table/") + kTable + "/" + SysId(i));
  }
  EXPECT_EQ(writes, expected) << JournalText();
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
