// SPDX-License-Identifier: Apache-2.0
// The partition Kafka's Java producer picks for a keyed record: murmur2 of the key bytes
// (seed 0x9747b28c), made positive by masking the sign bit, modulo the partition count.
// Written from the algorithm's description so the tests check placement independently of
// librdkafka.
#pragma once

#include <cstdint>
#include <string_view>

namespace snowcar::kafka::testing {

inline uint32_t Murmur2(std::string_view data) {
  constexpr uint32_t kSeed = 0x9747b28c;
  constexpr uint32_t kM = 0x5bd1e995;
  constexpr int kR = 24;
  const auto* bytes = reinterpret_cast<const unsigned char*>(data.data());
  const size_t length = data.size();
  uint32_t h = kSeed ^ static_cast<uint32_t>(length);
  const size_t blocks = length / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k = static_cast<uint32_t>(bytes[4 * i]) |
                 (static_cast<uint32_t>(bytes[4 * i + 1]) << 8) |
                 (static_cast<uint32_t>(bytes[4 * i + 2]) << 16) |
                 (static_cast<uint32_t>(bytes[4 * i + 3]) << 24);
    k *= kM;
    k ^= k >> kR;
    k *= kM;
    h *= kM;
    h ^= k;
  }
  const size_t tail = blocks * 4;
  switch (length % 4) {
    case 3:
      h ^= static_cast<uint32_t>(bytes[tail + 2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= static_cast<uint32_t>(bytes[tail + 1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= static_cast<uint32_t>(bytes[tail]);
      h *= kM;
      break;
    default:
      break;
  }
  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return h;
}

inline int32_t JavaPartitionFor(std::string_view key, int32_t partitions) {
  return static_cast<int32_t>((Murmur2(key) & 0x7fffffffu) % static_cast<uint32_t>(partitions));
}

}  // namespace snowcar::kafka::testing
