// SPDX-License-Identifier: Apache-2.0
// The ordered (sys_updated_on, sys_id) index of one table, with O(log n) ranks.
//
// A sorted sequence cut into leaves of at most kMaxLeaf entries, plus the running count of
// entries before each leaf. Finding the rank of a key is a binary search over leaves then
// inside one leaf, so counting the rows of a key range costs O(log n) and a page starts at
// any rank without walking the rows before it. Writes move at most one leaf's entries and
// refresh the running counts (a few thousand integers for a million rows).
//
// Not thread-safe: the owning table's lock guards it. Entries point into immutable rows
// the table keeps alive while they are indexed.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {

struct IndexEntry {
  std::string_view ts;
  std::string_view id;
  const Row* row = nullptr;
};

// A probe: ts plus either an exact id or "before/after every id of this ts".
struct IndexProbe {
  enum class Id { kBeforeAll, kExact, kAfterAll };
  std::string_view ts;
  Id id_mode = Id::kBeforeAll;
  std::string_view id;
};

class KeysetIndex {
 public:
  static constexpr size_t kMaxLeaf = 512;

  struct Cursor {
    size_t leaf = 0;
    size_t pos = 0;
  };

  void Insert(const IndexEntry& entry);
  // Removes the entry with this exact key; false when absent.
  bool Erase(std::string_view ts, std::string_view id);
  // Replaces the content with `entries` (any order); used after bulk loads.
  void Rebuild(std::vector<IndexEntry> entries);

  size_t size() const { return size_; }
  // Rank of the first entry not ordered before `probe` (size() when none).
  size_t LowerBound(const IndexProbe& probe) const;
  // Rank of the first entry ordered after the exact key (ts, id).
  size_t UpperBoundExact(std::string_view ts, std::string_view id) const;

  // Cursor at `rank` (REQUIRES rank < size()).
  Cursor Seek(size_t rank) const;
  const IndexEntry& At(const Cursor& c) const { return leaves_[c.leaf][c.pos]; }
  void Next(Cursor& c) const;
  void Prev(Cursor& c) const;

  // Checks ordering and counts (tests).
  bool CheckInvariants() const;

 private:
  void RefreshPrefix();
  size_t LeafFor(const IndexProbe& probe) const;

  std::vector<std::vector<IndexEntry>> leaves_;
  std::vector<size_t> before_;  // before_[i] = entries in leaves_[0..i)
  size_t size_ = 0;
};

}  // namespace snowcar::emulator
