// SPDX-License-Identifier: Apache-2.0
// How a table's reconciliation id set (the sys_ids emitted and not deleted) travels on the
// changelog topic, so that it moves with the table on a scale-out handoff (docs/scale-out.md,
// "What moves with a table").
//
// Why chunks beside the snapshot rather than inside it: the set grows with the table (16
// bytes a row, 160 MB for ten million rows) and a Kafka record stays under 1 MB, while the
// snapshot must stay one small record. So the owner writes the set as numbered chunk records
// of one *generation*, waits until Kafka acknowledged every chunk, and only then names the
// generation in the table's snapshot (the manifest). A reader trusts a generation only when
// the snapshot names it and every chunk it names is found: a half-written generation is
// never read. Once a snapshot naming the new generation is acknowledged, the chunks of the
// one before are deleted with tombstones, so compaction keeps one copy.
//
// When: after every finished sweep (the set then matches the instance) and when the owner
// gives the table up cleanly. A kill -9 leaves the copy of the last finished sweep.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::source {

// Ids per chunk record: 32 768 x 16 bytes = 512 KiB, half of Kafka's default record limit.
inline constexpr size_t kIdsPerChunk = 32768;

struct IdSetManifest {
  int64_t generation = 0;  // counts up with each copy this table's owners write
  std::string nonce;       // tells apart two owners' copies with the same number
  int64_t chunks = 0;      // records 0 .. chunks-1
  uint64_t ids = 0;        // in all chunks together
  uint64_t at_sweep = 0;   // the sweep count (SweepState::sweeps) when it was written
  int64_t written_at_ms = 0;

  bool operator==(const IdSetManifest&) const = default;
};

std::string EncodeIdSetManifest(const IdSetManifest& manifest);
// kDataLoss naming what is wrong.
Result<IdSetManifest> DecodeIdSetManifest(std::string_view text);

// The key of chunk `index` of `manifest`'s generation: "<alias>/idset/<generation>-<nonce>/
// <index>". An alias never holds '/', so no chunk key is ever a snapshot key (the alias).
std::string IdSetChunkKey(std::string_view alias, const IdSetManifest& manifest, int64_t index);
// What every chunk key of that generation starts with.
std::string IdSetChunkPrefix(std::string_view alias, const IdSetManifest& manifest);

// A chunk's value: a line naming the generation and the chunk, then the ids, 16 bytes each
// (the 32 hex digits as binary). `ids` must be 32-hex sys_ids (the id set holds no other).
Result<std::string> EncodeIdSetChunk(const IdSetManifest& manifest, int64_t index,
                                     const std::vector<std::string>& ids);
// The ids of a chunk value, in hex; kDataLoss when it is not chunk `index` of that generation.
Result<std::vector<std::string>> DecodeIdSetChunk(std::string_view value,
                                                  const IdSetManifest& manifest, int64_t index);
// The chunk index in `key` when it is a chunk key of that generation, else nullopt.
std::optional<int64_t> IdSetChunkIndex(std::string_view key, std::string_view alias,
                                       const IdSetManifest& manifest);

}  // namespace snowcar::source
