// SPDX-License-Identifier: Apache-2.0
// What the fuzz targets of framed commands (Avro, Protobuf) share: a registry without a
// network that resolves ids from a fixed map, the record a fuzz input becomes, and the checks
// on the command DecodeCommand reads from a decoded record.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "fuzz_check.h"
#include "snowcar/kafka/record.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/sink/commands/command.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::fuzz {

// Ids resolve from `schemas`; nothing registers, everything is compatible.
class FixedRegistry final : public schema_registry::SchemaRegistryClient {
 public:
  explicit FixedRegistry(std::map<int32_t, schema_registry::RegisteredSchema> schemas)
      : schemas_(std::move(schemas)) {}
  Result<int32_t> RegisterSchema(std::string_view, schema_registry::SchemaType,
                                 std::string_view) override {
    return Status::FailedPrecondition("the fuzz registry registers nothing");
  }
  Result<schema_registry::RegisteredSchema> SchemaById(int32_t id) override {
    const auto it = schemas_.find(id);
    if (it == schemas_.end()) return Status::NotFound("no schema " + std::to_string(id));
    return it->second;
  }
  Result<bool> IsCompatible(std::string_view, schema_registry::SchemaType,
                            std::string_view) override {
    return true;
  }

 private:
  const std::map<int32_t, schema_registry::RegisteredSchema> schemas_;
};

// A record of the commands topic with `value`, as the sink reads it.
inline kafka::InRecord CommandRecord(std::string value) {
  kafka::InRecord record;
  record.topic = "commands";
  record.offset = 7;
  record.key = "0123456789abcdef0123456789abcdef";
  record.value = std::move(value);
  return record;
}

// A command read from a decoded record is refused with kInvalidArgument or has string values
// only.
inline void CheckCommand(const kafka::InRecord& plain) {
  sink::SinkSettings settings;
  settings.table = "incident";
  auto command = sink::DecodeCommand(plain, settings);
  if (!command.ok()) {
    FUZZ_CHECK(command.status().code() == StatusCode::kInvalidArgument,
               "a command refusal is kInvalidArgument");
    return;
  }
  for (const auto& [name, value] : command->fields) {
    FUZZ_CHECK(value.is_string(), "every value is a string");
  }
}

}  // namespace snowcar::fuzz
