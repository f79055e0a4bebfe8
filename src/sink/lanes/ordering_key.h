// SPDX-License-Identifier: Apache-2.0
// Which records must stay in offset order with each other under snow.sink.ordering=key.
#pragma once

#include <string>

#include "snowcar/kafka/record.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

// The record's ordering key: records with equal keys are applied one at a time, in offset
// order; records with different keys may run concurrently.
//   - a record with a Kafka key: that key, byte for byte ("k" + key);
//   - a keyless record whose value carries snow.sink.correlation.field as a JSON string or
//     number: that value ("c" + value), so a create and a later keyless command for the same
//     business key stay in order;
//   - any other record: "" (one chain for all of them, in offset order).
// A key or value in Confluent's wire format (Avro, JSON Schema) counts as what `decoder`
// turns it into, as the lane will read it: a framed command and a JSON command for the same
// key or correlation value share one chain. The schema comes from the decoder's cache, or
// from the registry on the first record of a schema (this call then waits for the answer).
// Decided from the bytes alone otherwise: a record that will fail to decode (no decoder, a
// payload that does not decode, a registry that does not answer) still gets a key, from its
// raw bytes, and its failure then takes the error path (or holds) on that key.
std::string OrderingKey(const kafka::InRecord& record, const SinkSettings& settings,
                        schema_registry::FramedDecoder* decoder = nullptr);

}  // namespace snowcar::sink
