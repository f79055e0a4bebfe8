// SPDX-License-Identifier: Apache-2.0
// Commands written in Confluent's wire format (Avro or JSON Schema through a Schema Registry,
// as a Kafka Connect producer with AvroConverter or JsonSchemaConverter writes them): the key
// and value are turned back into the JSON text DecodeCommand reads, so every rule after that
// is the same as for a JSON command. A plain JSON or string part is left as it is: the magic
// byte 0 never starts JSON text, so no setting is needed to tell the two apart.
#pragma once

#include <optional>

#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"
#include "snowcar/schema_registry/framed_decoder.h"

namespace snowcar::sink {

// The record with its framed key and/or value decoded to JSON text, or nullopt when neither
// is framed (use the record as it is). `decoder` may be null (no schema.registry.url), and a
// framed record then fails with InvalidArgument saying so.
//
// Errors: the registry client's (client.h) and InvalidArgument for a payload that does not
// decode. The lane acts on their cell in the outcome table (schema_registry/outcomes.h,
// column kSchemaById; docs/outcomes.md shows it).
Result<std::optional<kafka::InRecord>> DecodeFramedParts(const kafka::InRecord& record,
                                                         schema_registry::FramedDecoder* decoder);

}  // namespace snowcar::sink
