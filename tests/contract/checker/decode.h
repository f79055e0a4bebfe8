// SPDX-License-Identifier: Apache-2.0
// Reading one source record as the table's declared format says it was written: the
// operation header, the key (a plain sys_id: key.format=string), and the value as schemaless
// JSON, typed JSON, or Confluent-framed JSON Schema / Avro. Avro payloads are read with avro-c
// directly and the schema fetched by id from the registry, not through snowcar's decoder, so
// a bug shared by snowcar's writer and reader cannot hide here.
#pragma once

#include <avro.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "checker/records.h"
#include "snowcar/common/status.h"

namespace snowcar::contract {

enum class ValueFormat { kJson, kJsonTyped, kAvro, kJsonSchema };
enum class Operation { kUpsert, kDelete, kTombstone };

const char* FormatName(ValueFormat format);

struct SourceFormat {
  ValueFormat value = ValueFormat::kJson;
  bool envelope = false;  // snow.source.emit.envelope
};

struct DecodedRecord {
  Operation op = Operation::kUpsert;
  std::string sys_id;
  int64_t mod_count = -1;    // UPSERT only
  std::string updated_by;    // UPSERT only, "" when the row has none
  bool origin_sink = false;  // header snow.origin=sink
  std::string found_by;      // header snow.source.delete.found.by ("reconciliation"), if any
};

// The schema text registered under `id`; nullopt when the registry does not know it.
using SchemaLookup = std::function<std::optional<std::string>(int32_t id)>;

class SourceDecoder {
 public:
  SourceDecoder(SourceFormat format, SchemaLookup lookup);
  ~SourceDecoder();
  SourceDecoder(const SourceDecoder&) = delete;
  SourceDecoder& operator=(const SourceDecoder&) = delete;

  // InvalidArgument naming what does not decode.
  Result<DecodedRecord> Decode(const KafkaRecord& record);

 private:
  struct AvroClass {
    avro_schema_t schema = nullptr;
    avro_value_iface_t* iface = nullptr;
  };
  // The value's JSON text: the record's bytes, or the framed payload read with its schema.
  Result<std::string> ValueJson(const std::string& bytes);
  Result<std::string> AvroToJson(int32_t id, const std::string& payload);

  SourceFormat format_;
  SchemaLookup lookup_;
  std::map<int32_t, AvroClass> avro_;
};

}  // namespace snowcar::contract
