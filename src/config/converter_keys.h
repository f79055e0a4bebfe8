// SPDX-License-Identifier: Apache-2.0
// Rewriting the Kafka Connect converter keys onto snowcar's record format keys, so that a
// Connect properties file with Avro or JSON Schema converters runs unchanged:
//
//   value.converter=io.confluent.connect.avro.AvroConverter      -> value.format=avro
//   value.converter=io.confluent.connect.json.JsonSchemaConverter -> value.format=json_schema
//   value.converter=io.confluent.connect.protobuf.ProtobufConverter -> value.format=protobuf
//   value.converter=org.apache.kafka.connect.json.JsonConverter   -> value.format=json
//   value.converter.schema.registry.url                           -> schema.registry.url
//   value.converter.basic.auth.user.info                          ->
//   schema.registry.basic.auth.user.info value.converter.basic.auth.credentials.source ->
//   schema.registry.basic.auth.credentials.source value.converter.schema.registry.ssl.* ->
//   schema.registry.ssl.* value.converter.value.subject.name.strategy                   ->
//   value.subject.name.strategy
//
// and the same for `key.converter`. Converter settings without a snowcar meaning are noted
// and dropped; a converter snowcar cannot stand in for (Protobuf, an unknown class) is an
// error naming it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "raw_value.h"

namespace snowcar::config {

void RewriteConverterKeys(std::map<std::string, RawValue>& merged, std::vector<std::string>& errors,
                          std::vector<std::string>& notes);

}  // namespace snowcar::config
