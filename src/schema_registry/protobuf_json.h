// SPDX-License-Identifier: Apache-2.0
// A Protobuf record rendered as the JSON text the sink's command decoding reads, through
// libprotobuf's reflection over the writer's schema (protobuf/proto_schema.h):
//
//   message                       an object, fields in declaration order by name
//   unset optional field or       null (a member of a real oneof that is not set is left out)
//   unset message field
//   repeated field / map          an array / an object keyed by the map key's text
//   integers, bool, float/double  JSON numbers (64-bit ones exact), true/false
//   string                        a JSON string
//   bytes                         base64, as Protobuf's own JSON mapping writes them
//   enum                          the value's name (its number when the schema lacks it)
//   google.protobuf.Timestamp     the Table API's `YYYY-MM-DD HH:MM:SS` (UTC, whole seconds)
//   google.protobuf.*Value        the wrapped value (the wrapper types carry nullable scalars)
//
// Internal to the module (framed_decoder.cpp).
#pragma once

#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/protobuf/proto_schema.h"

namespace snowcar::schema_registry {

// `payload` is what follows the 5-byte header: the message-index path, then the message.
// InvalidArgument when the path names no message of `schema`, the bytes do not parse as that
// message, or a value has no JSON form (a non-finite double, a timestamp outside years
// 0001-9999), naming the field.
Result<std::string> ProtobufToJson(const protobuf::ProtoSchema& schema, std::string_view payload);

}  // namespace snowcar::schema_registry
