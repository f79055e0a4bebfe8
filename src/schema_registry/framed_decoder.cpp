// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/framed_decoder.h"

#include <boost/json.hpp>
#include <map>
#include <mutex>

#include "avro_json.h"
#include "connect_json.h"
#include "protobuf_json.h"
#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::schema_registry {

struct FramedDecoder::Impl {
  explicit Impl(SchemaRegistryClient& c) : client(c) {}
  SchemaRegistryClient& client;
  std::mutex mu;
  // Parsed writer schemas by id (ids never change meaning within one registry).
  std::map<int32_t, std::shared_ptr<AvroReaderSchema>> avro;
  std::map<int32_t, std::shared_ptr<ConnectJsonTypes>> json;
  std::map<int32_t, std::shared_ptr<const protobuf::ProtoSchema>> proto;
};

namespace {

// A JSON Schema payload: checked to be JSON, with Connect's logical values rewritten when
// the schema has any.
Result<std::string> JsonPayload(const ConnectJsonTypes& types, std::string_view payload,
                                const std::string& id_text) {
  if (types.root() != nullptr) {
    auto rewritten = types.Rewrite(payload);
    if (!rewritten.ok()) {
      return rewritten.status().WithContext("record written with JSON Schema " + id_text);
    }
    return rewritten;
  }
  boost::system::error_code ec;
  boost::json::parse(payload, ec);
  if (ec) {
    return Status::InvalidArgument("the payload of a record written with JSON Schema " + id_text +
                                   " is not JSON: " + ec.message());
  }
  return std::string(payload);
}

}  // namespace

FramedDecoder::FramedDecoder(SchemaRegistryClient& client)
    : impl_(std::make_unique<Impl>(client)) {}
FramedDecoder::~FramedDecoder() = default;

Result<std::string> FramedDecoder::ToJson(std::string_view framed) {
  SNOWCAR_ASSIGN_OR_RETURN(Unframed u, Unframe(framed));
  const std::string id_text = "schema id " + std::to_string(u.schema_id);
  std::shared_ptr<AvroReaderSchema> reader;
  std::shared_ptr<ConnectJsonTypes> json_types;
  std::shared_ptr<const protobuf::ProtoSchema> proto;
  {
    std::lock_guard lock(impl_->mu);
    if (auto it = impl_->avro.find(u.schema_id); it != impl_->avro.end()) reader = it->second;
    if (auto it = impl_->json.find(u.schema_id); it != impl_->json.end()) json_types = it->second;
    if (auto it = impl_->proto.find(u.schema_id); it != impl_->proto.end()) proto = it->second;
  }
  if (reader == nullptr && json_types == nullptr && proto == nullptr) {
    auto schema = impl_->client.SchemaById(u.schema_id);
    if (!schema.ok()) {
      if (schema.status().code() == StatusCode::kNotFound) {
        return Status::NotFound(
            "the record names " + id_text +
            ", which the schema registry does not know: " + schema.status().message());
      }
      return schema.status().WithContext("looking up " + id_text);
    }
    if (schema->type == SchemaType::kProtobuf) {
      auto parsed = protobuf::ProtoSchema::Parse(schema->schema);
      if (!parsed.ok()) return parsed.status().WithContext(id_text);
      proto = std::move(parsed).value();
      std::lock_guard lock(impl_->mu);
      impl_->proto.try_emplace(u.schema_id, proto);
    } else if (schema->type == SchemaType::kJson) {
      auto parsed = ConnectJsonTypes::Parse(schema->schema);
      if (!parsed.ok()) return parsed.status().WithContext(id_text);
      json_types = std::shared_ptr<ConnectJsonTypes>(std::move(parsed).value());
      std::lock_guard lock(impl_->mu);
      impl_->json.try_emplace(u.schema_id, json_types);
    } else {
      auto parsed = AvroReaderSchema::Parse(schema->schema);
      if (!parsed.ok()) return parsed.status().WithContext(id_text);
      reader = std::shared_ptr<AvroReaderSchema>(std::move(parsed).value());
      std::lock_guard lock(impl_->mu);
      impl_->avro.try_emplace(u.schema_id, reader);
    }
  }
  if (json_types != nullptr) return JsonPayload(*json_types, u.payload, id_text);
  if (proto != nullptr) {
    auto json = ProtobufToJson(*proto, u.payload);
    if (!json.ok()) return json.status().WithContext("record written with Protobuf " + id_text);
    return json;
  }
  auto json = reader->ToJson(u.payload);
  if (!json.ok()) return json.status().WithContext("record written with Avro " + id_text);
  return json;
}

Result<std::string> AvroToJson(std::string_view writer_schema, std::string_view payload) {
  SNOWCAR_ASSIGN_OR_RETURN(auto reader, AvroReaderSchema::Parse(writer_schema));
  return reader->ToJson(payload);
}

Result<std::string> ProtobufSchemaToJson(std::string_view schema, std::string_view payload) {
  SNOWCAR_ASSIGN_OR_RETURN(auto parsed, protobuf::ProtoSchema::Parse(schema));
  return ProtobufToJson(*parsed, payload);
}

Result<std::string> JsonSchemaToJson(std::string_view schema, std::string_view payload) {
  SNOWCAR_ASSIGN_OR_RETURN(auto types, ConnectJsonTypes::Parse(schema));
  return JsonPayload(*types, payload, "(given)");
}

}  // namespace snowcar::schema_registry
