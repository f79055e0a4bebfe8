// SPDX-License-Identifier: Apache-2.0
// The schemas framed_command_fuzzer.cpp's registry knows, by id. The seed corpus
// (corpus/framed_command/) holds values written with them by python3-avro.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "snowcar/schema_registry/client.h"

namespace snowcar::fuzz {

inline const std::map<int32_t, schema_registry::RegisteredSchema>& FramedSchemas() {
  using schema_registry::SchemaType;
  static const auto* schemas = new std::map<int32_t, schema_registry::RegisteredSchema>{
      // Every physical type: record, union, enum, array, map, fixed, bytes, numbers.
      {1, {1, SchemaType::kAvro, R"({"type":"record","name":"Command","namespace":"acme","fields":[
  {"name":"short_description","type":"string"},
  {"name":"priority","type":["null","int"],"default":null},
  {"name":"active","type":"boolean"},
  {"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","CLOSED"]}},
  {"name":"tags","type":{"type":"array","items":"string"}},
  {"name":"counts","type":{"type":"map","values":"long"}},
  {"name":"score","type":"double"},
  {"name":"ratio","type":"float"},
  {"name":"blob","type":"bytes"},
  {"name":"tag4","type":{"type":"fixed","name":"Tag4","size":4}},
  {"name":"sys_id","type":["null","string"],"default":null}]})"}},
      // Kafka Connect's logical types as AvroConverter registers them, and the rest.
      {2, {2, SchemaType::kAvro, R"({"type":"record","name":"Logical","namespace":"acme","fields":[
  {"name":"opened_at","type":{"type":"long","connect.version":1,
    "connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}},
  {"name":"due","type":["null",{"type":"int","connect.name":"org.apache.kafka.connect.data.Date",
    "logicalType":"date"}],"default":null},
  {"name":"at","type":{"type":"int","logicalType":"time-millis"}},
  {"name":"at_us","type":{"type":"long","logicalType":"time-micros"}},
  {"name":"ts_us","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"local_ms","type":{"type":"long","logicalType":"local-timestamp-millis"}},
  {"name":"local_us","type":{"type":"long","logicalType":"local-timestamp-micros"}},
  {"name":"cost","type":["null",{"type":"bytes","scale":2,"precision":64,"connect.version":1,
    "connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal",
    "logicalType":"decimal"}],"default":null},
  {"name":"money","type":{"type":"fixed","name":"Money","size":8,"logicalType":"decimal",
    "precision":18,"scale":3}},
  {"name":"id","type":{"type":"string","logicalType":"uuid"}}]})"}},
      // Logical values nested in arrays, maps and a recursive named record.
      {3, {3, SchemaType::kAvro, R"({"type":"record","name":"Order","namespace":"shop","fields":[
  {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
    {"name":"day","type":{"type":"int","logicalType":"date"}},
    {"name":"next","type":["null","Line"],"default":null}]}}},
  {"name":"prices","type":{"type":"map","values":{"type":"bytes","logicalType":"decimal",
    "precision":5,"scale":1}}},
  {"name":"first","type":"shop.Line"}]})"}},
      // A primitive string, as a framed key carries a sys_id.
      {4, {4, SchemaType::kAvro, R"("string")"}},
      // JSON Schema: the payload is JSON text.
      {5,
       {5, SchemaType::kJson,
        R"({"type":"object","properties":{"short_description":{"type":"string"},
  "opened_at":{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp"}}})"}},
  };
  return *schemas;
}

}  // namespace snowcar::fuzz
