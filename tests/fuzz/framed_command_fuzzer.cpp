// SPDX-License-Identifier: Apache-2.0
// Sink commands in Confluent's wire format. Input: one record value as it comes off the
// topic (magic byte 0, 4-byte schema id, Avro binary or JSON text), decoded by
// DecodeFramedParts through a FramedDecoder whose registry is a fixed in-process map of
// schemas (framed_schemas.h: records, unions, enums, arrays, maps, fixed, logical types, a
// JSON Schema), then read by DecodeCommand.
//
// Properties: nothing crashes or leaks whatever the bytes; a refusal is kInvalidArgument, or
// kNotFound for an id the registry does not know, with a message that says why; a decoded
// Avro record is a JSON object; a command that comes out has string values only.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "framed_schemas.h"
#include "fuzz_check.h"
#include "sink/commands/command_framed.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/schema_registry/wire_format.h"
#include "snowcar/sink/commands/command.h"

namespace {

namespace sr = snowcar::schema_registry;

// The registry without a network: ids resolve from the fixed map, nothing registers.
class FixedRegistry final : public sr::SchemaRegistryClient {
 public:
  snowcar::Result<int32_t> RegisterSchema(std::string_view, sr::SchemaType,
                                          std::string_view) override {
    return snowcar::Status::FailedPrecondition("the fuzz registry registers nothing");
  }
  snowcar::Result<sr::RegisteredSchema> SchemaById(int32_t id) override {
    const auto& schemas = snowcar::fuzz::FramedSchemas();
    const auto it = schemas.find(id);
    if (it == schemas.end()) return snowcar::Status::NotFound("no schema " + std::to_string(id));
    return it->second;
  }
  snowcar::Result<bool> IsCompatible(std::string_view, sr::SchemaType, std::string_view) override {
    return true;
  }
};

void CheckRefusal(const snowcar::Status& status) {
  FUZZ_CHECK(status.code() == snowcar::StatusCode::kInvalidArgument ||
                 status.code() == snowcar::StatusCode::kNotFound,
             "a bad framed record is kInvalidArgument or kNotFound (a RECORD_ERROR)");
  FUZZ_CHECK(!status.message().empty(), "a refusal says why");
}

}  // namespace

// avro-c asks for `length + 1` bytes when a payload claims a negative string or bytes length
// (a size near 2^64); glibc's malloc answers that with null, which avro-c reports as an error
// the decoder turns into a bad record. ASan would instead stop the run at the request, so it
// is told to answer as glibc does.
// NOLINTNEXTLINE(bugprone-reserved-identifier): the name ASan looks up
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One decoder for the whole run, as in the sidecar: its cache of parsed schemas is shared.
  static FixedRegistry* registry = new FixedRegistry();
  static sr::FramedDecoder* decoder = new sr::FramedDecoder(*registry);

  snowcar::kafka::InRecord record;
  record.topic = "commands";
  record.offset = 7;
  record.key = "0123456789abcdef0123456789abcdef";
  record.value = std::string(reinterpret_cast<const char*>(data), size);

  auto decoded = snowcar::sink::DecodeFramedParts(record, decoder);
  if (!decoded.ok()) {
    CheckRefusal(decoded.status());
    return 0;
  }
  if (!decoded->has_value()) {
    FUZZ_CHECK(!sr::LooksFramed(*record.value), "a framed value is always decoded");
    return 0;
  }
  const snowcar::kafka::InRecord& plain = **decoded;
  FUZZ_CHECK(plain.value.has_value(), "a decoded value is still there");
  auto unframed = sr::Unframe(*record.value);
  FUZZ_CHECK(unframed.ok(), "what decodes was framed");
  const auto& schemas = snowcar::fuzz::FramedSchemas();
  const auto& schema = schemas.at(unframed->schema_id);
  if (schema.type == sr::SchemaType::kAvro && schema.schema.front() == '{') {
    boost::system::error_code ec;
    const boost::json::value v = boost::json::parse(*plain.value, ec);
    FUZZ_CHECK(!ec && v.is_object(), "an Avro record decodes to a JSON object");
  }

  snowcar::sink::SinkSettings settings;
  settings.table = "incident";
  auto command = snowcar::sink::DecodeCommand(plain, settings);
  if (!command.ok()) {
    FUZZ_CHECK(command.status().code() == snowcar::StatusCode::kInvalidArgument,
               "a command refusal is kInvalidArgument");
    return 0;
  }
  for (const auto& [name, value] : command->fields) {
    FUZZ_CHECK(value.is_string(), "every value is a string");
  }
  return 0;
}
