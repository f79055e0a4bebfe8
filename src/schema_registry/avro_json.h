// SPDX-License-Identifier: Apache-2.0
// A parsed Avro writer schema and the avro-c value class to read payloads with, and the
// rendering of a read value as JSON. Internal to the module (framed_decoder.cpp).
#pragma once

#include <avro.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "avro_logical.h"
#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

class AvroReaderSchema {
 public:
  // InvalidArgument with avro-c's explanation when `schema_json` is not an Avro schema.
  static Result<std::unique_ptr<AvroReaderSchema>> Parse(std::string_view schema_json);
  ~AvroReaderSchema();
  AvroReaderSchema(const AvroReaderSchema&) = delete;
  AvroReaderSchema& operator=(const AvroReaderSchema&) = delete;

  // Reads `payload` and renders it as JSON text, values of a logical type as the text the
  // Table API takes (logical_text.h). InvalidArgument when it does not decode, when bytes are
  // left over after the value (a payload written with another schema), or when a logical
  // value has no such text (naming the field and the value).
  Result<std::string> ToJson(std::string_view payload);

 private:
  AvroReaderSchema() = default;
  std::mutex mu_;  // avro-c values of one class are not shared between threads
  avro_schema_t schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  std::unique_ptr<AvroLogicalTypes> logical_;  // what avro-c leaves out of schema_
};

}  // namespace snowcar::schema_registry
