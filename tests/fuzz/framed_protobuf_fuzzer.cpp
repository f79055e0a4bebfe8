// SPDX-License-Identifier: Apache-2.0
// Sink commands in Confluent's Protobuf wire format. Input: what follows the 5-byte header of
// a record value (the message-index list, then the message's bytes); the fuzzer puts the
// header of schema id 1 in front, a .proto file with several messages (scalars of every kind,
// repeated and packed fields, a map, an enum, bytes, a oneof, nested messages, the wrapper
// types and a Timestamp, a proto2 file's required field under id 2 when the input's first
// byte is odd). The value goes through DecodeFramedParts and a FramedDecoder whose registry is
// that fixed map, then through DecodeCommand.
//
// Properties: nothing crashes or leaks whatever the bytes; a refusal is kInvalidArgument with
// a message that says why; a decoded record is a JSON object; a command that comes out has
// string values only.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "framed_fuzz.h"
#include "fuzz_check.h"
#include "sink/commands/command_framed.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/schema_registry/wire_format.h"
#include "snowcar/sink/commands/command.h"

namespace {

namespace sr = snowcar::schema_registry;

constexpr const char* kProto3 = R"(syntax = "proto3";
package acme;
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
enum State { NEW = 0; CLOSED = 1; }
message Other { string note = 1; message Deep { int32 level = 1; Other back = 2; } }
message Command {
  string short_description = 1;
  optional int64 priority = 2;
  bool active = 3;
  State state = 4;
  repeated string tags = 5;
  map<string, int64> counts = 6;
  double score = 7;
  float ratio = 8;
  bytes blob = 9;
  sint32 delta = 10;
  fixed64 big = 11;
  repeated int32 packed = 12;
  map<int32, Other> others = 13;
  oneof choice { string text = 14; Other.Deep deep = 15; }
  google.protobuf.StringValue sys_id = 16;
  google.protobuf.Int32Value urgency = 17;
  google.protobuf.Timestamp opened_at = 18;
  uint64 count = 19;
})";

constexpr const char* kProto2 = R"(syntax = "proto2";
package legacy;
message Command { required string short_description = 1; optional int32 urgency = 2; })";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto* registry = new snowcar::fuzz::FixedRegistry(
      {{1, {1, sr::SchemaType::kProtobuf, kProto3}}, {2, {2, sr::SchemaType::kProtobuf, kProto2}}});
  static sr::FramedDecoder* decoder = new sr::FramedDecoder(*registry);

  if (size == 0) return 0;
  const int32_t id = (data[0] & 1) != 0 ? 2 : 1;
  std::string value;
  sr::AppendWireHeader(id, value);
  value.append(reinterpret_cast<const char*>(data) + 1, size - 1);

  const snowcar::kafka::InRecord record = snowcar::fuzz::CommandRecord(std::move(value));

  auto decoded = snowcar::sink::DecodeFramedParts(record, decoder);
  if (!decoded.ok()) {
    FUZZ_CHECK(decoded.status().code() == snowcar::StatusCode::kInvalidArgument,
               "a bad Protobuf record is kInvalidArgument (a RECORD_ERROR)");
    FUZZ_CHECK(!decoded.status().message().empty(), "a refusal says why");
    return 0;
  }
  FUZZ_CHECK(decoded->has_value(), "a framed value is always decoded");
  const snowcar::kafka::InRecord& plain = **decoded;
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(*plain.value, ec);
  FUZZ_CHECK(!ec && v.is_object(), "a Protobuf message decodes to a JSON object");

  snowcar::fuzz::CheckCommand(plain);
  return 0;
}
