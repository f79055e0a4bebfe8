// SPDX-License-Identifier: Apache-2.0
// Turning a record in Confluent's wire format back into JSON text, for readers that speak
// JSON (the sink's command decoding):
//
//   Avro         the payload is read with the writer's schema (looked up by id through the
//                client, so cached) by avro-c, and rendered as plain JSON: a record or map
//                becomes an object, a union its branch's value (no {"type": value} wrapper),
//                an enum its symbol, bytes and fixed a string of those bytes (one character
//                per byte, as Avro's own JSON encoding does). A value of a logical type
//                (timestamp, date, time, decimal) becomes the string the Table API takes
//                for it, read from the schema's `logicalType` (docs/sink.md).
//   JSON Schema  the payload is the JSON text itself; it is checked to parse. Where the schema
//                marks Kafka Connect's Timestamp, Date, Time or Decimal (by `title`), those
//                values become the same strings as their Avro logical types do; every other
//                value keeps its exact text.
//
//   Protobuf     the message-index path after the schema id picks the message of the writer's
//                .proto file (parsed by libprotobuf, protobuf/proto_schema.h), the payload is
//                read by libprotobuf's reflection and rendered as an object of its fields:
//                google.protobuf.Timestamp as the Table API's date-time text, the wrapper
//                types as their value, bytes as base64, enums by name (protobuf_json.h).
//
// Errors: InvalidArgument (not framed, payload does not decode, not JSON, a logical value
// with no Table API text, such as a date past the year 9999), and the client's errors of the
// schema lookup (client.h; NotFound: no schema with that id). What each leads to is the
// outcome table's kSchemaById column (schema_registry/outcomes.h).
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/schema_registry/client.h"

namespace snowcar::schema_registry {

class FramedDecoder {
 public:
  // `client` must outlive the decoder.
  explicit FramedDecoder(SchemaRegistryClient& client);
  ~FramedDecoder();
  FramedDecoder(const FramedDecoder&) = delete;
  FramedDecoder& operator=(const FramedDecoder&) = delete;

  // JSON text for a framed record. A primitive Avro string decodes to the bare string (not
  // quoted), so a framed string key reads like a plain one.
  Result<std::string> ToJson(std::string_view framed);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Avro binary `payload` written with `writer_schema` (Avro schema JSON) as JSON text, by the
// rules above. For tests and tools; FramedDecoder caches the parsed schema instead.
Result<std::string> AvroToJson(std::string_view writer_schema, std::string_view payload);
// The same for a Protobuf payload (`payload` starts with the message-index path) written
// with the .proto text `schema`.
Result<std::string> ProtobufSchemaToJson(std::string_view schema, std::string_view payload);
// The same for a JSON Schema payload.
Result<std::string> JsonSchemaToJson(std::string_view schema, std::string_view payload);

}  // namespace snowcar::schema_registry
