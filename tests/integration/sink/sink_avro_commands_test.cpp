// SPDX-License-Identifier: Apache-2.0
// Commands in Avro, Confluent's wire format, as a Connect producer with AvroConverter sends
// them: the schema registered in the registry double (`snowcar registry`'s server, over a real
// socket), payloads written by avro-c's writer, the records produced to the embedded broker,
// and the real `snowcar run` sink applying them to the emulator. Bad framed records take the
// DLQ; a registry answering 503 holds the record until it answers. Connect's Timestamp and
// Decimal, in Avro and in JSON Schema, reach the row as the text the Table API takes.

#include <string>
#include <vector>

#include "../../unit/schema_registry/avro_payload.h"
#include "sink_registry_fixture.h"
#include "snowcar/schema_registry/wire_format.h"
#include "support/http_post.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using schema_registry::avro_test::AvroPayload;
using testsupport::WaitFor;

constexpr char kAvroCommand[] = R"({"type":"record","name":"Command","namespace":"acme.it",
  "fields":[{"name":"short_description","type":"string"},
            {"name":"urgency","type":["null","int"],"default":null}]})";

// The Avro binary of one command, written by avro-c.
std::string AvroCommand(const std::string& text, std::optional<int> urgency) {
  return AvroPayload(kAvroCommand, [&](avro_value_t& record) {
    avro_value_t field;
    avro_value_t branch;
    avro_value_get_by_name(&record, "short_description", &field, nullptr);
    avro_value_set_string(&field, text.c_str());
    avro_value_get_by_name(&record, "urgency", &field, nullptr);
    if (urgency.has_value()) {
      avro_value_set_branch(&field, 1, &branch);
      avro_value_set_int(&branch, *urgency);
    } else {
      avro_value_set_branch(&field, 0, &branch);
      avro_value_set_null(&branch);
    }
  });
}

// Kafka Connect's AvroConverter shapes for a Timestamp and a Decimal(scale 2) field.
constexpr char kConnectTyped[] = R"({"type":"record","name":"Typed","namespace":"acme.it",
  "fields":[{"name":"short_description","type":"string"},
    {"name":"opened_at","type":{"type":"long","connect.version":1,
      "connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}},
    {"name":"u_cost","type":["null",{"type":"bytes","scale":2,"precision":64,
      "connect.version":1,"connect.parameters":{"scale":"2"},
      "connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],
     "default":null}]})";

class SinkAvroCommandsTest : public SinkRegistryTest {
 protected:
  void SetUp() override {
    SinkRegistryTest::SetUp();
    StartRegistryWithCommands(schema_registry::SchemaType::kAvro, kAvroCommand);
  }

  void RegistryFails(int count) {
    const auto answer = testsupport::PostEmpty(
        registry_.base_url() + "/_registry/fail?count=" + std::to_string(count) + "&status=503");
    ASSERT_EQ(answer.status, 200) << answer.body;
  }
};

TEST_F(SinkAvroCommandsTest, AvroCommandsAreAppliedAndBadOnesDeadLettered) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(1), {{"short_description", "before"}});
  auto sink = StartSink(topic, group,
                        {"value.converter=io.confluent.connect.avro.AvroConverter",
                         "value.converter.schema.registry.url=" + registry_.base_url(),
                         "behavior.on.api.errors=log", "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);

  const std::string good_create = schema_registry::Frame(schema_id_, AvroCommand("created", 2));
  const std::string good_patch =
      schema_registry::Frame(schema_id_, AvroCommand("patched", std::nullopt));
  const std::string unknown_id = schema_registry::Frame(schema_id_ + 100, AvroCommand("x", 1));
  const std::string cut = good_create.substr(0, good_create.size() - 4);
  Produce(topic, {Command(std::nullopt, good_create), Command(SysId(9), unknown_id),
                  Command(SysId(1), good_patch), Command(SysId(9), cut)});

  ASSERT_TRUE(CommitsWithin(group, topic, 4, sink));
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "patched");
  bool created = false;
  for (const auto& row : RowsWithText("created")) {
    created = true;
    EXPECT_EQ(row.at("urgency"), "2") << "an Avro int is written as a string";
  }
  EXPECT_TRUE(created) << JournalText();

  auto dead = ReadTopic(dlq, 2);
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_EQ(dead[0].Header("__connect.errors.offset"), "1");
  EXPECT_EQ(dead[0].Header("snow.error.class"), "RECORD_ERROR");
  EXPECT_NE(
      dead[0].Header("snow.error.message")->find("schema id " + std::to_string(schema_id_ + 100)),
      std::string::npos)
      << *dead[0].Header("snow.error.message");
  EXPECT_EQ(dead[0].value, unknown_id) << "the DLQ keeps the record as it came";
  EXPECT_EQ(dead[1].Header("__connect.errors.offset"), "3");
  EXPECT_NE(dead[1].Header("snow.error.message")->find("does not decode"), std::string::npos)
      << *dead[1].Header("snow.error.message");
  StopSink(sink);
}

TEST_F(SinkAvroCommandsTest, UnansweringRegistryHoldsTheRecordInsteadOfDroppingIt) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(2), {{"short_description", "before"}});
  auto sink = StartSink(topic, group,
                        {"schema.registry.url=" + registry_.base_url(),
                         "behavior.on.api.errors=log", "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);
  RegistryFails(3);  // the first three lookups of the id get 503
  Produce(topic, {Command(SysId(2), schema_registry::Frame(schema_id_, AvroCommand("held", 1)))});

  ASSERT_TRUE(WaitFor([&] { return Row(SysId(2))->at("short_description") == "held"; }, 60s, 100ms))
      << Tail(sink);
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 1; }, 30s, 100ms));
  const auto lanes = Partitions(sink).at("partitions").as_array();
  ASSERT_EQ(lanes.size(), 1u);
  EXPECT_GE(lanes[0].as_object().at("retries").as_int64(), 3) << boost::json::serialize(lanes);
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  StopSink(sink);
}

TEST_F(SinkAvroCommandsTest, ConnectTimestampAndDecimalReachTheTableAsText) {
  auto id = Register("typed-value", schema_registry::SchemaType::kAvro, kConnectTyped);
  ASSERT_TRUE(id.ok()) << id.status().message();
  const std::string payload = AvroPayload(kConnectTyped, [](avro_value_t& record) {
    avro_value_t field;
    avro_value_t branch;
    avro_value_get_by_name(&record, "short_description", &field, nullptr);
    avro_value_set_string(&field, "typed");
    avro_value_get_by_name(&record, "opened_at", &field, nullptr);
    avro_value_set_long(&field, 1733300000123);  // 2024-12-04 08:13:20.123 UTC
    avro_value_get_by_name(&record, "u_cost", &field, nullptr);
    avro_value_set_branch(&field, 1, &branch);
    char cost[] = {'\xfb', '\x2e'};  // -1234 unscaled: -12.34
    avro_value_set_bytes(&branch, cost, sizeof cost);
  });
  const std::string topic = NewTopic(1);
  const std::string group = NewGroup();
  auto sink = StartSink(topic, group, {"schema.registry.url=" + registry_.base_url()});
  WaitAssigned(sink, 1);
  Produce(topic, {Command(std::nullopt, schema_registry::Frame(*id, payload))});

  ASSERT_TRUE(CommitsWithin(group, topic, 1, sink));
  bool found = false;
  for (const auto& row : Rows()) {
    if (row.count("short_description") == 0 || row.at("short_description") != "typed") continue;
    found = true;
    EXPECT_EQ(row.at("opened_at"), "2024-12-04 08:13:20")
        << "a Connect Timestamp is a ServiceNow date-time, not a count of milliseconds";
    EXPECT_EQ(row.at("u_cost"), "-12.34") << "a Connect Decimal is its exact digits";
  }
  EXPECT_TRUE(found) << JournalText();
  StopSink(sink);
}

TEST_F(SinkAvroCommandsTest, ConnectJsonSchemaTimestampAndBase64DecimalReachTheTableAsText) {
  // JsonSchemaConverter's shapes: the logical types are marked only by `title`, and a
  // Decimal is base64 of its unscaled bytes (the converter's default decimal.format).
  constexpr char kJsonSchema[] = R"({"type":"object","properties":{
    "short_description":{"type":"string","connect.index":0},
    "opened_at":{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp",
      "connect.version":1,"connect.index":1,"connect.type":"int64"},
    "u_cost":{"connect.index":2,"oneOf":[{"type":"null"},{"type":"number",
      "title":"org.apache.kafka.connect.data.Decimal","connect.version":1,
      "connect.parameters":{"scale":"2"},"connect.type":"bytes"}]}}})";
  auto id = Register("json-typed-value", schema_registry::SchemaType::kJson, kJsonSchema);
  ASSERT_TRUE(id.ok()) << id.status().message();
  const std::string topic = NewTopic(1);
  const std::string group = NewGroup();
  auto sink = StartSink(topic, group,
                        {"value.converter=io.confluent.connect.json.JsonSchemaConverter",
                         "value.converter.schema.registry.url=" + registry_.base_url()});
  WaitAssigned(sink, 1);
  Produce(topic,
          {Command(std::nullopt,
                   schema_registry::Frame(*id, R"({"short_description":"json typed",)"
                                               R"("opened_at":1733300000123,"u_cost":"+y4="})"))});

  ASSERT_TRUE(CommitsWithin(group, topic, 1, sink));
  bool found = false;
  for (const auto& row : Rows()) {
    if (row.count("short_description") == 0 || row.at("short_description") != "json typed") {
      continue;
    }
    found = true;
    EXPECT_EQ(row.at("opened_at"), "2024-12-04 08:13:20");
    EXPECT_EQ(row.at("u_cost"), "-12.34") << "+y4= is the bytes fb 2e: -1234 at scale 2";
  }
  EXPECT_TRUE(found) << JournalText();
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
