// SPDX-License-Identifier: Apache-2.0
// The compatibility rules of the registry double (docs/testbed.md, "Schema Registry double").
//
// Each check asks whether data written with `writer` can be read with `reader` and returns ""
// when it can, otherwise every reason it cannot, one per line, naming the field. BACKWARD
// compatibility of a new schema is Check(reader = new, writer = old); FORWARD swaps them;
// FULL asks both.
#pragma once

#include <boost/json/value.hpp>
#include <string>

#include "snowcar/protobuf/proto_schema.h"

namespace snowcar::registry {

// Avro, after the specification's schema resolution: a reader field missing from the writer
// needs a default; a writer field missing from the reader is skipped; types must match or be
// a promotion (int -> long/float/double, long -> float/double, float -> double,
// string <-> bytes); records and enums and fixed match by name; every writer enum symbol must
// be a reader symbol unless the reader enum has a default; unions match branch by branch.
// REQUIRES: both schemas were accepted by avro-c.
std::string AvroIncompatibilities(const boost::json::value& reader,
                                  const boost::json::value& writer);

// JSON Schema, a deliberately simple rule on the top-level object and its nested objects:
// the "type" must not change (except integer -> number, or to a list holding the old type); a
// property required by the reader must have been required by the writer; a reader with
// "additionalProperties": false must declare every property of the writer.
std::string JsonSchemaIncompatibilities(const boost::json::value& reader,
                                        const boost::json::value& writer);

// Protobuf, a subset of what the real registry checks, on the messages of both files matched
// by full name (nested ones too): a message of the writer must still exist in the reader; a
// field number in both must keep its cardinality (repeated or not) and a wire-compatible type
// (int32, int64, uint32, uint64, bool and enum together; sint32 with sint64; fixed32 with
// sfixed32; fixed64 with sfixed64; string with bytes; float, double alone; a message or enum
// field must name the same type); a `required` field (proto2) may be neither added nor
// removed. Names are not compared: a field is its number on the wire.
std::string ProtobufIncompatibilities(const protobuf::ProtoSchema& reader,
                                      const protobuf::ProtoSchema& writer);

}  // namespace snowcar::registry
