// SPDX-License-Identifier: Apache-2.0
// Builds Avro binary payloads with avro-c for the tests: an independent writer, so decoding
// is checked against bytes the module under test did not produce.
#pragma once

#include <avro.h>

#include <functional>
#include <string>
#include <string_view>

namespace snowcar::schema_registry::avro_test {

// Parses `schema`, lets `fill` set the value, and returns the value's Avro binary encoding.
// Fails the test (and returns "") when any avro-c call fails.
std::string AvroPayload(std::string_view schema, const std::function<void(avro_value_t&)>& fill);

}  // namespace snowcar::schema_registry::avro_test
