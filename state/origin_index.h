// SPDX-License-Identifier: Apache-2.0
// The origin family's byte layout and its in-memory index (state_store_origin.cpp).
//
// Two key spaces in one column family:
//   'v' P(table) P(sys_id) P(instance) u32 mod_count   -> the origin (value below)
//   't' i64 written_at_ms <the 'v' key without its 'v'> -> empty
// The first answers "did the sink write this exact version" and, by prefix, "which versions
// of this row"; the second sorts the entries by the time they were recorded, so pruning by
// age and by count walks from the oldest.
//
// The index holds a 64-bit hash of every 'v' key in memory, so a source asking about a
// version the sink never wrote (nearly every row) gets its answer without a disk read. A hash
// hit is confirmed by reading the exact key: a collision never marks a foreign version.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "snowcar/state/state_store.h"

namespace snowcar::state::origin {

inline constexpr char kVersionSpace = 'v';
inline constexpr char kTimeSpace = 't';

// 'v' key of one version; `out` is overwritten (reused by the hot path).
void VersionKey(std::string* out, std::string_view instance, std::string_view table,
                std::string_view sys_id, uint32_t mod_count);
// 'v' P(table) P(sys_id): the prefix of every version of one row.
std::string RowPrefix(std::string_view table, std::string_view sys_id);
// 't' key for a 'v' key recorded at `written_at_ms`.
std::string TimeKey(std::string_view version_key, int64_t written_at_ms);
// The 'v' key a 't' key points at, and its time; false when `time_key` is malformed.
bool SplitTimeKey(std::string_view time_key, std::string* version_key, int64_t* written_at_ms);
bool DecodeVersionKey(std::string_view key, OriginKey* out);

std::string EncodeValue(const Origin& origin);
bool DecodeValue(std::string_view value, Origin* out);

// Hashes of the 'v' keys present on disk, with multiplicity (two keys may share a hash).
class HashIndex {
 public:
  static uint64_t Hash(std::string_view version_key);
  void Add(std::string_view version_key) { ++counts_[Hash(version_key)]; }
  void Remove(std::string_view version_key);
  bool MayContain(std::string_view version_key) const {
    return counts_.find(Hash(version_key)) != counts_.end();
  }
  void Clear() { counts_.clear(); }

 private:
  std::unordered_map<uint64_t, uint32_t> counts_;
};

// What the store keeps in memory about the family, loaded when it opens.
struct Memory {
  std::mutex mu;  // guards everything below but `count`, and orders RecordOrigin calls
  HashIndex hashes;
  std::atomic<uint64_t> count{0};  // versions on disk; read without the lock by FindOrigin
  // The oldest 't' key that may still exist: pruning seeks here instead of walking over the
  // tombstones of everything it deleted before.
  std::string scan_from{std::string(1, kTimeSpace)};
  // SetOriginWindow: entries older than this many ms are no match for FindOrigin (-1: not
  // set, no age check), by `clock` (null: the system clock). Read without the lock.
  std::atomic<int64_t> window_ms{-1};
  std::atomic<const Clock*> clock{nullptr};
};

}  // namespace snowcar::state::origin
