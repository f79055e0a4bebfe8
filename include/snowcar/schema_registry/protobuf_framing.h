// SPDX-License-Identifier: Apache-2.0
// Confluent's wire format for Protobuf records: after the 5-byte header of wire_format.h comes
// the message-index path, which names the message of the schema file the payload is:
//
//   byte 0      magic byte 0
//   bytes 1..4  the schema id, big-endian
//   then        the path: a count, then that many indexes, each a zigzag varint; the path
//               {0} (the file's first message, the usual case) is written as a single 0 byte
//               (a count of 0)
//   then        the message in Protobuf's binary encoding
//
// The varints go through libprotobuf's coded streams.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

// A path longer than this is refused when read: no schema nests messages that deep, and the
// count would otherwise size an allocation from untrusted bytes.
inline constexpr int kMaxMessageIndexes = 64;

// Appends `path` as above ({0}, or an empty path, is the single 0 byte).
void AppendMessageIndexes(const std::vector<int>& path, std::string& out);

// The header, the path {0} and `payload`: a record of the schema's first message.
std::string FrameProtobuf(int32_t schema_id, std::string_view payload);

// Reads the path at the front of `payload` (what Unframe leaves) and advances `payload` past
// it. A count of 0 is the path {0}. InvalidArgument when the varints are cut short or
// malformed, the count is negative or above kMaxMessageIndexes, or an index is negative.
Result<std::vector<int>> ReadMessageIndexes(std::string_view& payload);

}  // namespace snowcar::schema_registry
