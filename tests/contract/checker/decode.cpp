// SPDX-License-Identifier: Apache-2.0
#include "checker/decode.h"

#include <boost/json.hpp>
#include <cctype>
#include <cstdlib>

namespace snowcar::contract {
namespace {

bool IsSysId(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// avro-c renders a union's non-null branch as {"<type>": value}: the value inside.
const boost::json::value* Unwrap(const boost::json::value* v) {
  if (v != nullptr && v->is_object() && v->as_object().size() == 1) {
    return &v->as_object().begin()->value();
  }
  return v;
}

Result<int64_t> ModCount(const boost::json::value* raw, ValueFormat format) {
  const boost::json::value* v = Unwrap(raw);
  if (v == nullptr) return Status::InvalidArgument("no sys_mod_count");
  if (format == ValueFormat::kJson) {
    // Schemaless rows carry the instance's text: every value a string.
    if (!v->is_string() || v->as_string().empty()) {
      return Status::InvalidArgument("sys_mod_count is not a string of digits");
    }
    const std::string text(v->as_string());
    for (char c : text) {
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        return Status::InvalidArgument("sys_mod_count '" + text + "' is not a number");
      }
    }
    return std::strtoll(text.c_str(), nullptr, 10);
  }
  // Typed formats: the column is an integer, so the value is a number, not text.
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return Status::InvalidArgument("typed sys_mod_count is not an integer: " +
                                 boost::json::serialize(*v));
}

std::string Text(const boost::json::object& row, const char* name) {
  const boost::json::value* v = Unwrap(row.if_contains(name));
  if (v == nullptr) return "";
  if (v->is_string()) return std::string(v->as_string());
  // A reference field in schemaless JSON: {"link","value"}.
  if (v->is_object()) {
    if (const auto* inner = v->as_object().if_contains("value"); inner && inner->is_string()) {
      return std::string(inner->as_string());
    }
  }
  return "";
}

}  // namespace

const char* FormatName(ValueFormat format) {
  switch (format) {
    case ValueFormat::kJson:
      return "json";
    case ValueFormat::kJsonTyped:
      return "json_typed";
    case ValueFormat::kAvro:
      return "avro";
    case ValueFormat::kJsonSchema:
      return "json_schema";
  }
  return "?";
}

SourceDecoder::SourceDecoder(SourceFormat format, SchemaLookup lookup)
    : format_(format), lookup_(std::move(lookup)) {}

SourceDecoder::~SourceDecoder() {
  for (auto& [id, c] : avro_) {
    if (c.iface != nullptr) avro_value_iface_decref(c.iface);
    if (c.schema != nullptr) avro_schema_decref(c.schema);
  }
}

Result<std::string> SourceDecoder::AvroToJson(int32_t id, const std::string& payload) {
  auto it = avro_.find(id);
  if (it == avro_.end()) {
    std::optional<std::string> text = lookup_ ? lookup_(id) : std::nullopt;
    if (!text) return Status::InvalidArgument("schema id " + std::to_string(id) + " unknown");
    AvroClass c;
    if (avro_schema_from_json_length(text->data(), text->size(), &c.schema) != 0) {
      return Status::InvalidArgument("schema " + std::to_string(id) +
                                     " is not Avro: " + avro_strerror());
    }
    c.iface = avro_generic_class_from_schema(c.schema);
    it = avro_.emplace(id, c).first;
  }
  avro_value_t value;
  if (avro_generic_value_new(it->second.iface, &value) != 0) {
    return Status::Internal(std::string("avro value: ") + avro_strerror());
  }
  avro_reader_t reader = avro_reader_memory(payload.data(), static_cast<int64_t>(payload.size()));
  const int rc = avro_value_read(reader, &value);
  // Bytes left after the value: written with another schema than the id says.
  char extra = 0;
  const bool rest = rc == 0 && avro_read(reader, &extra, 1) == 0;
  avro_reader_free(reader);
  std::string out;
  if (rc == 0 && !rest) {
    char* json = nullptr;
    if (avro_value_to_json(&value, 1, &json) == 0 && json != nullptr) out = json;
    free(json);  // NOLINT(cppcoreguidelines-no-malloc): avro-c allocates with malloc
  }
  avro_value_decref(&value);
  if (rc != 0) return Status::InvalidArgument(std::string("Avro payload: ") + avro_strerror());
  if (rest) return Status::InvalidArgument("Avro payload has bytes after the value");
  if (out.empty()) return Status::InvalidArgument("Avro value does not render as JSON");
  return out;
}

Result<std::string> SourceDecoder::ValueJson(const std::string& bytes) {
  const bool framed =
      format_.value == ValueFormat::kAvro || format_.value == ValueFormat::kJsonSchema;
  if (!framed) {
    if (!bytes.empty() && bytes[0] == '\0') {
      return Status::InvalidArgument("a framed value on a JSON topic");
    }
    return bytes;
  }
  // Confluent's wire format: magic 0, a 4-byte big-endian schema id, the payload.
  if (bytes.size() < 5 || bytes[0] != '\0') {
    return Status::InvalidArgument(std::string("not framed (") + FormatName(format_.value) +
                                   " needs the 0 byte and a schema id)");
  }
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  const int32_t id = static_cast<int32_t>((uint32_t{b[1]} << 24) | (uint32_t{b[2]} << 16) |
                                          (uint32_t{b[3]} << 8) | uint32_t{b[4]});
  const std::string payload = bytes.substr(5);
  if (format_.value == ValueFormat::kAvro) return AvroToJson(id, payload);
  if (!lookup_ || !lookup_(id)) {
    return Status::InvalidArgument("schema id " + std::to_string(id) + " unknown");
  }
  return payload;
}

Result<DecodedRecord> SourceDecoder::Decode(const KafkaRecord& record) {
  DecodedRecord out;
  const auto op = record.Header("snow.source.operation");
  if (!op) return Status::InvalidArgument("no snow.source.operation header");
  if (*op == "UPSERT") {
    out.op = Operation::kUpsert;
  } else if (*op == "DELETE") {
    out.op = Operation::kDelete;
  } else if (*op == "TOMBSTONE") {
    out.op = Operation::kTombstone;
  } else {
    return Status::InvalidArgument("unknown operation '" + *op + "'");
  }
  // key.format=string: the key is the sys_id's bytes.
  if (!record.key || !IsSysId(*record.key)) {
    return Status::InvalidArgument("key is not a plain sys_id (key.format=string)");
  }
  out.sys_id = *record.key;
  out.origin_sink = record.Header("snow.origin") == std::optional<std::string>("sink");
  out.found_by = record.Header("snow.source.delete.found.by").value_or("");
  if (out.op == Operation::kTombstone) {
    if (record.value) return Status::InvalidArgument("a TOMBSTONE with a value");
    return out;
  }
  if (!record.value) return Status::InvalidArgument("a null value on a non-tombstone");
  SNOWCAR_ASSIGN_OR_RETURN(std::string json, ValueJson(*record.value));
  boost::system::error_code ec;
  boost::json::value parsed = boost::json::parse(json, ec);
  if (ec || !parsed.is_object()) return Status::InvalidArgument("value is not a JSON object");
  const boost::json::object& obj = parsed.as_object();
  const boost::json::object* row = &obj;
  if (format_.envelope) {
    const char* part = out.op == Operation::kUpsert ? "after" : "source";
    const auto* inner = Unwrap(obj.if_contains(part));
    if (inner == nullptr || !inner->is_object()) {
      return Status::InvalidArgument(std::string("envelope without '") + part + "'");
    }
    row = &inner->as_object();
  }
  if (Text(*row, "sys_id") != out.sys_id) {
    return Status::InvalidArgument("value's sys_id differs from the key");
  }
  if (out.op == Operation::kUpsert) {
    SNOWCAR_ASSIGN_OR_RETURN(out.mod_count,
                             ModCount(row->if_contains("sys_mod_count"), format_.value));
    out.updated_by = Text(*row, "sys_updated_by");
  }
  return out;
}

}  // namespace snowcar::contract
