// SPDX-License-Identifier: Apache-2.0
// Confluent's message-index list, and Protobuf payloads rendered as the JSON the sink reads
// (framed_decoder.h), the payloads written by libprotobuf from the text format.
#include <gmock/gmock.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "snowcar/protobuf/proto_schema.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/schema_registry/protobuf_framing.h"
#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::schema_registry {
namespace {

using ::testing::HasSubstr;

TEST(ProtobufFramingTest, TheFirstMessageIsOneZeroByteAndOthersAZigzagList) {
  std::string out;
  AppendMessageIndexes({0}, out);
  EXPECT_EQ(out, std::string(1, '\0'));
  out.clear();
  AppendMessageIndexes({1, 0}, out);
  EXPECT_EQ(out, std::string("\x04\x02\x00", 3));  // count 2, then 1 and 0, zigzag
  std::string_view in = out;
  auto path = ReadMessageIndexes(in);
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(*path, (std::vector<int>{1, 0}));
  EXPECT_TRUE(in.empty());
  std::string_view zero("\0rest", 5);
  path = ReadMessageIndexes(zero);
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(*path, std::vector<int>{0});
  EXPECT_EQ(zero, "rest");
  EXPECT_EQ(FrameProtobuf(258, "p"), std::string("\0\0\0\x01\x02\0p", 7));
}

TEST(ProtobufFramingTest, BadListsAreRefusedSayingWhy) {
  std::string_view empty;
  EXPECT_THAT(ReadMessageIndexes(empty).status().message(), HasSubstr("no message-index list"));
  std::string_view cut("\x06\x02", 2);  // three indexes announced, one given
  EXPECT_THAT(ReadMessageIndexes(cut).status().message(), HasSubstr("cut short (1 of 3"));
  std::string_view negative("\x01", 1);  // zigzag 1 = -1
  EXPECT_THAT(ReadMessageIndexes(negative).status().message(), HasSubstr("count of -1"));
  std::string_view huge("\xfe\x01", 2);  // 127 indexes
  EXPECT_THAT(ReadMessageIndexes(huge).status().message(), HasSubstr("count of 127"));
  std::string_view negative_index("\x02\x03", 2);
  EXPECT_THAT(ReadMessageIndexes(negative_index).status().message(), HasSubstr("-2"));
}

constexpr const char* kProtoCommandSchema = R"(syntax = "proto3";
package acme;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
enum State { NEW = 0; CLOSED = 1; }
message First { string a = 1; }
message Command {
  string short_description = 1;
  optional int64 priority = 2;
  State state = 3;
  repeated string tags = 4;
  map<string, int64> counts = 5;
  bytes blob = 6;
  google.protobuf.Int32Value urgency = 7;
  google.protobuf.StringValue note = 8;
  google.protobuf.Timestamp opened_at = 9;
  First nested = 10;
  oneof choice { string text = 11; int32 number = 12; }
  uint64 big = 13;
  message Inner { bool on = 1; }
})";

std::string ProtoCommandPayload(const std::vector<int>& path, const std::string& text_format) {
  auto schema = protobuf::ProtoSchema::Parse(kProtoCommandSchema);
  EXPECT_TRUE(schema.ok()) << schema.status().message();
  auto type = (*schema)->MessageAt(path);
  EXPECT_TRUE(type.ok()) << type.status().message();
  auto m = (*schema)->NewMessage(*type);
  struct Errors : google::protobuf::io::ErrorCollector {
    void AddError(int line, int column, const std::string& message) override {
      text += std::to_string(line) + ":" + std::to_string(column) + ": " + message + "; ";
    }
    std::string text;
  } errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  EXPECT_TRUE(parser.ParseFromString(text_format, m.get())) << errors.text;
  std::string out;
  AppendMessageIndexes(path, out);
  return out + m->SerializeAsString();
}

TEST(ProtobufDecodeTest, EveryKindBecomesTheJsonTheSinkReads) {
  auto json = ProtobufSchemaToJson(
      kProtoCommandSchema,
      ProtoCommandPayload({1}, R"(short_description: "x" state: CLOSED tags: "a" tags: "b"
          counts { key: "k" value: -3 } blob: "\x01\xff" urgency { value: 2 }
          opened_at { seconds: 1733300000 nanos: 999000000 } nested { a: "n" } number: 5
          big: 18446744073709551615)"));
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_EQ(*json, R"({"short_description":"x","priority":null,"state":"CLOSED","tags":["a","b"],)"
                   R"("counts":{"k":-3},"blob":"Af8=","urgency":2,"note":null,)"
                   R"("opened_at":"2024-12-04 08:13:20","nested":{"a":"n"},"number":5,)"
                   R"("big":18446744073709551615})");
  auto inner = ProtobufSchemaToJson(kProtoCommandSchema, ProtoCommandPayload({1, 0}, "on: true"));
  ASSERT_TRUE(inner.ok()) << inner.status().message();
  EXPECT_EQ(*inner, R"({"on":true})");
}

TEST(ProtobufDecodeTest, BadPayloadsAndSchemasAreRefusedSayingWhy) {
  const std::string good = ProtoCommandPayload({1}, R"(short_description: "hello")");
  auto cut = ProtobufSchemaToJson(kProtoCommandSchema, good.substr(0, good.size() - 2));
  EXPECT_EQ(cut.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(cut.status().message(), HasSubstr("does not parse as Protobuf message acme.Command"));
  std::string past;
  AppendMessageIndexes({7}, past);
  auto none = ProtobufSchemaToJson(kProtoCommandSchema, past);
  EXPECT_THAT(none.status().message(), HasSubstr("[7] names no message"));
  auto import = ProtobufSchemaToJson(
      R"(syntax = "proto3"; import "confluent/type/decimal.proto"; message M { string a = 1; })",
      std::string(1, '\0'));
  EXPECT_THAT(import.status().message(), HasSubstr("imports confluent/type/decimal.proto"));
  auto typo = ProtobufSchemaToJson("syntax = \"proto3\";\nmessage M { strin a = 1; }", "");
  EXPECT_THAT(typo.status().message(), HasSubstr("\"strin\" is not defined"));
}

TEST(ProtobufDecodeTest, AProto2StringThatIsNotUtf8IsRefusedNamingTheField) {
  // proto3 parsing checks UTF-8, proto2 parsing does not; the JSON must be UTF-8 either way.
  // Found by the framed_protobuf fuzzer (regress-proto2-string-not-utf8).
  auto json = ProtobufSchemaToJson(R"(syntax = "proto2"; package legacy;
      message Command { required string short_description = 1; })",
                                   std::string("\x00\x0a\x06leg\x01\x8ey", 9));
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(json.status().message(),
              HasSubstr("field legacy.Command.short_description holds a string that is not UTF-8"));
}

}  // namespace
}  // namespace snowcar::schema_registry
