// SPDX-License-Identifier: Apache-2.0
// Which records must stay in offset order with each other under snow.sink.ordering=key.
#pragma once

#include <string>

#include "snowcar/kafka/record.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

// The record's ordering key: records with equal keys are applied one at a time, in offset
// order; records with different keys may run concurrently.
//   - a record with a Kafka key: that key, byte for byte ("k" + key);
//   - a keyless record whose value carries snow.sink.correlation.field as a JSON string or
//     number: that value ("c" + value), so a create and a later keyless command for the same
//     business key stay in order;
//   - any other record: "" (one chain for all of them, in offset order).
// Decided from the bytes alone: a record that will fail to decode still gets a key, and its
// failure then takes the error path on that key.
std::string OrderingKey(const kafka::InRecord& record, const SinkSettings& settings);

}  // namespace snowcar::sink
