// SPDX-License-Identifier: Apache-2.0
// A parsed Avro writer schema and the avro-c value class to read payloads with, and the
// rendering of a read value as JSON. Internal to the module (framed_decoder.cpp).
#pragma once

#include <avro.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

class AvroReaderSchema {
 public:
  // InvalidArgument with avro-c's explanation when `schema_json` is not an Avro schema.
  static Result<std::unique_ptr<AvroReaderSchema>> Parse(std::string_view schema_json);
  ~AvroReaderSchema();
  AvroReaderSchema(const AvroReaderSchema&) = delete;
  AvroReaderSchema& operator=(const AvroReaderSchema&) = delete;

  // Reads `payload` and renders it as JSON text. InvalidArgument when it does not decode,
  // or when bytes are left over after the value (a payload written with another schema).
  Result<std::string> ToJson(std::string_view payload);

 private:
  AvroReaderSchema() = default;
  std::mutex mu_;  // avro-c values of one class are not shared between threads
  avro_schema_t schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
};

}  // namespace snowcar::schema_registry
