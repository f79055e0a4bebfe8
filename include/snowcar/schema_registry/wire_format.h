// SPDX-License-Identifier: Apache-2.0
// Confluent's wire format for a record value or key written against a registered schema:
//
//   byte 0      magic byte, always 0
//   bytes 1..4  the schema id, a signed 32-bit integer, big-endian
//   bytes 5..   the payload (Avro binary, or JSON text for JSON Schema)
//
// Frame and Unframe are the only places that know this layout; producers (source encoders)
// and consumers (sink decoding) both go through them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

inline constexpr uint8_t kMagicByte = 0;
inline constexpr size_t kWireHeaderSize = 5;

// Appends the 5-byte header for `schema_id` to `out` (the payload is appended after it by the
// caller, so an encoder can write straight into one buffer).
void AppendWireHeader(int32_t schema_id, std::string& out);

// Header + payload as one string.
std::string Frame(int32_t schema_id, std::string_view payload);

struct Unframed {
  int32_t schema_id = 0;
  std::string_view payload;  // points into the framed input
};

// Splits a framed record. InvalidArgument, saying what was found, when the record is shorter
// than the header or its first byte is not the magic byte (e.g. a plain JSON record sent to a
// topic configured for Avro).
Result<Unframed> Unframe(std::string_view record);
// The payload view would outlive a temporary string: hold the framed record in a variable.
Result<Unframed> Unframe(std::string&& record) = delete;

// True when `record` is long enough and starts with the magic byte. A cheap test only: plain
// JSON never starts with a 0 byte, so a sink can tell framed commands from JSON ones.
bool LooksFramed(std::string_view record);

}  // namespace snowcar::schema_registry
