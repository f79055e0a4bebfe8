// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::schema_registry {

void AppendWireHeader(int32_t schema_id, std::string& out) {
  const auto id = static_cast<uint32_t>(schema_id);
  out.push_back(static_cast<char>(kMagicByte));
  out.push_back(static_cast<char>((id >> 24) & 0xFF));
  out.push_back(static_cast<char>((id >> 16) & 0xFF));
  out.push_back(static_cast<char>((id >> 8) & 0xFF));
  out.push_back(static_cast<char>(id & 0xFF));
}

std::string Frame(int32_t schema_id, std::string_view payload) {
  std::string out;
  out.reserve(kWireHeaderSize + payload.size());
  AppendWireHeader(schema_id, out);
  out.append(payload);
  return out;
}

bool LooksFramed(std::string_view record) {
  return record.size() >= kWireHeaderSize && static_cast<uint8_t>(record[0]) == kMagicByte;
}

Result<Unframed> Unframe(std::string_view record) {
  if (record.size() < kWireHeaderSize) {
    return Status::InvalidArgument("record of " + std::to_string(record.size()) +
                                   " bytes is shorter than the 5-byte schema registry header "
                                   "(magic byte 0 and a 4-byte schema id)");
  }
  const auto first = static_cast<uint8_t>(record[0]);
  if (first != kMagicByte) {
    return Status::InvalidArgument("record starts with byte " + std::to_string(first) +
                                   ", not the schema registry magic byte 0: it was not written "
                                   "in Confluent's wire format");
  }
  uint32_t id = 0;
  for (size_t i = 1; i < kWireHeaderSize; ++i) id = (id << 8) | static_cast<uint8_t>(record[i]);
  return Unframed{static_cast<int32_t>(id), record.substr(kWireHeaderSize)};
}

}  // namespace snowcar::schema_registry
