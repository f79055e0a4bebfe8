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

#include "framed_fuzz.h"
#include "framed_schemas.h"
#include "fuzz_check.h"
#include "sink/commands/command_framed.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/schema_registry/wire_format.h"
#include "snowcar/sink/commands/command.h"

namespace {

namespace sr = snowcar::schema_registry;

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
  static auto* registry = new snowcar::fuzz::FixedRegistry(snowcar::fuzz::FramedSchemas());
  static sr::FramedDecoder* decoder = new sr::FramedDecoder(*registry);

  const snowcar::kafka::InRecord record =
      snowcar::fuzz::CommandRecord(std::string(reinterpret_cast<const char*>(data), size));

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

  snowcar::fuzz::CheckCommand(plain);
  return 0;
}
