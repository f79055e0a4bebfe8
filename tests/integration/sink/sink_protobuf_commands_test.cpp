// SPDX-License-Identifier: Apache-2.0
// Commands in Protobuf, Confluent's wire format with its message-index list, as a Connect
// producer with ProtobufConverter sends them: the .proto registered in the registry double,
// payloads written by libprotobuf (text format parsed into a dynamic message, then
// serialised), the real `snowcar run` sink applying them to the emulator. A payload cut short
// and an index naming no message take the DLQ.

#include <google/protobuf/text_format.h>

#include <string>
#include <vector>

#include "sink_registry_fixture.h"
#include "snowcar/protobuf/proto_schema.h"
#include "snowcar/schema_registry/protobuf_framing.h"
#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::sinkit {
namespace {

// Two messages, the command second: its records name it with the index list {1}.
constexpr char kProtoCommands[] = R"(syntax = "proto3";
package acme.it;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
message Other { string note = 1; }
message Command {
  string short_description = 1;
  google.protobuf.Int32Value urgency = 2;
  google.protobuf.Timestamp opened_at = 3;
})";

// The binary of `text_format` (Protobuf's text format) as message `index` of the schema.
std::string ProtoPayload(int index, const std::string& text_format) {
  auto schema = protobuf::ProtoSchema::Parse(kProtoCommands);
  EXPECT_TRUE(schema.ok()) << schema.status().message();
  auto type = (*schema)->MessageAt({index});
  EXPECT_TRUE(type.ok());
  auto message = (*schema)->NewMessage(*type);
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text_format, message.get()));
  return message->SerializeAsString();
}

// Header, the index list {index}, the payload.
std::string ProtoFramed(int32_t id, int index, const std::string& payload) {
  std::string out;
  schema_registry::AppendWireHeader(id, out);
  schema_registry::AppendMessageIndexes({index}, out);
  return out + payload;
}

class SinkProtobufCommandsTest : public SinkRegistryTest {
 protected:
  void SetUp() override {
    SinkRegistryTest::SetUp();
    StartRegistryWithCommands(schema_registry::SchemaType::kProtobuf, kProtoCommands);
  }
};

TEST_F(SinkProtobufCommandsTest, ProtobufCommandsAreAppliedAndBadOnesDeadLettered) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(1), {{"short_description", "before"}});
  auto sink = StartSink(topic, group,
                        {"value.converter=io.confluent.connect.protobuf.ProtobufConverter",
                         "value.converter.schema.registry.url=" + registry_.base_url(),
                         "behavior.on.api.errors=log", "errors.deadletterqueue.topic.name=" + dlq});
  WaitAssigned(sink, 1);

  // 1733300000 s = 2024-12-04 08:13:20 UTC; the nanos are dropped (whole seconds).
  const std::string create = ProtoFramed(
      schema_id_, 1, ProtoPayload(1, R"(short_description: "created" urgency { value: 2 }
                         opened_at { seconds: 1733300000 nanos: 123000000 })"));
  const std::string patch =
      ProtoFramed(schema_id_, 1, ProtoPayload(1, R"(short_description: "patched")"));
  const std::string no_such_message =
      ProtoFramed(schema_id_, 5, ProtoPayload(1, R"(short_description: "x")"));
  const std::string cut = create.substr(0, create.size() - 3);
  Produce(topic, {Command(std::nullopt, create), Command(SysId(9), no_such_message),
                  Command(SysId(1), patch), Command(SysId(9), cut)});

  ASSERT_TRUE(CommitsWithin(group, topic, 4, sink));
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "patched");
  bool created = false;
  for (const auto& row : RowsWithText("created")) {
    created = true;
    EXPECT_EQ(row.at("urgency"), "2") << "an Int32Value is its value, written as a string";
    EXPECT_EQ(row.at("opened_at"), "2024-12-04 08:13:20")
        << "a Timestamp is a ServiceNow date-time";
  }
  EXPECT_TRUE(created) << JournalText();

  auto dead = ReadTopic(dlq, 2);
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_EQ(dead[0].Header("__connect.errors.offset"), "1");
  EXPECT_EQ(dead[0].Header("snow.error.class"), "RECORD_ERROR");
  EXPECT_NE(dead[0].Header("snow.error.message")->find("names no message"), std::string::npos)
      << *dead[0].Header("snow.error.message");
  EXPECT_EQ(dead[0].value, no_such_message) << "the DLQ keeps the record as it came";
  EXPECT_EQ(dead[1].Header("__connect.errors.offset"), "3");
  EXPECT_NE(dead[1]
                .Header("snow.error.message")
                ->find("does not parse as Protobuf message "
                       "acme.it.Command"),
            std::string::npos)
      << *dead[1].Header("snow.error.message");
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
