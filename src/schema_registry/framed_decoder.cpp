// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/framed_decoder.h"

#include <boost/json.hpp>
#include <map>
#include <mutex>

#include "avro_json.h"
#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::schema_registry {

struct FramedDecoder::Impl {
  explicit Impl(SchemaRegistryClient& c) : client(c) {}
  SchemaRegistryClient& client;
  std::mutex mu;
  // Parsed Avro writer schemas by id (ids never change meaning within one registry).
  std::map<int32_t, std::shared_ptr<AvroReaderSchema>> avro;
};

FramedDecoder::FramedDecoder(SchemaRegistryClient& client)
    : impl_(std::make_unique<Impl>(client)) {}
FramedDecoder::~FramedDecoder() = default;

Result<std::string> FramedDecoder::ToJson(std::string_view framed) {
  SNOWCAR_ASSIGN_OR_RETURN(Unframed u, Unframe(framed));
  const std::string id_text = "schema id " + std::to_string(u.schema_id);
  std::shared_ptr<AvroReaderSchema> reader;
  {
    std::lock_guard lock(impl_->mu);
    if (auto it = impl_->avro.find(u.schema_id); it != impl_->avro.end()) reader = it->second;
  }
  if (reader == nullptr) {
    auto schema = impl_->client.SchemaById(u.schema_id);
    if (!schema.ok()) {
      if (schema.status().code() == StatusCode::kNotFound) {
        return Status::NotFound(
            "the record names " + id_text +
            ", which the schema registry does not know: " + schema.status().message());
      }
      return schema.status().WithContext("looking up " + id_text);
    }
    if (schema->type == SchemaType::kJson) {
      boost::system::error_code ec;
      boost::json::parse(u.payload, ec);
      if (ec) {
        return Status::InvalidArgument("the payload of a record written with JSON Schema " +
                                       id_text + " is not JSON: " + ec.message());
      }
      return std::string(u.payload);
    }
    auto parsed = AvroReaderSchema::Parse(schema->schema);
    if (!parsed.ok()) return parsed.status().WithContext(id_text);
    reader = std::shared_ptr<AvroReaderSchema>(std::move(parsed).value());
    std::lock_guard lock(impl_->mu);
    impl_->avro.try_emplace(u.schema_id, reader);
  }
  auto json = reader->ToJson(u.payload);
  if (!json.ok()) return json.status().WithContext("record written with Avro " + id_text);
  return json;
}

Result<std::string> AvroToJson(std::string_view writer_schema, std::string_view payload) {
  SNOWCAR_ASSIGN_OR_RETURN(auto reader, AvroReaderSchema::Parse(writer_schema));
  return reader->ToJson(payload);
}

}  // namespace snowcar::schema_registry
