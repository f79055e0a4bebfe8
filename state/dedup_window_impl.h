// SPDX-License-Identifier: Apache-2.0
// DedupWindowImpl: the in-memory front of one table's dedup index.
//
// Why not std::unordered_set<std::string>: a source sweep checks every row it reads, and the
// overlap re-read after each idle wake makes most of those checks hits, so the check is on
// the hot path. Here an entry is a fixed 32-byte value (ts, sys_id as 128 bits, mod count),
// kept in an insertion-ordered ring, and the set is an open-addressing table of 8-byte slots
// (32 bits of hash + ring position) probed linearly: no allocation per row, one or two cache
// lines per lookup, and FIFO eviction without a separate list.
//
// Exactness: dedup must never suppress a different row. A sys_id is packed into 128 bits only
// when it is exactly 32 lowercase hex digits (ServiceNow's form), which is a bijection. Any
// other id is interned: stored once as a string with a reference count, and the entry holds
// its intern number, so equality is still equality of the full strings.
//
// Not thread-safe (one source poller strand owns a window).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "snowcar/state/state_store.h"

namespace snowcar::state {

class DedupWindowImpl final : public DedupWindow {
 public:
  // `owner` identifies the StateStore that made the window (Commit refuses foreign windows).
  DedupWindowImpl(std::string instance, std::string table, const DedupPolicy& policy,
                  const void* owner);

  const std::string& table() const override { return table_; }
  const std::string& instance() const { return instance_; }
  bool Contains(const DedupKey& key) const override {
    return Contains(key.ts, key.sys_id, key.mod_count);
  }
  bool Insert(const DedupKey& key) override { return Insert(key.ts, key.sys_id, key.mod_count); }
  bool Contains(int64_t ts, std::string_view sys_id, uint32_t mod_count) const override;
  bool Insert(int64_t ts, std::string_view sys_id, uint32_t mod_count) override;
  size_t size() const override { return size_; }
  size_t pending() const override { return pending_; }

  // ---- used by StateStoreImpl --------------------------------------------------------------
  const DedupPolicy& policy() const { return policy_; }
  const void* owner() const { return owner_; }
  // The table's dedup key prefix (codec::DedupPrefix).
  const std::string& key_prefix() const { return key_prefix_; }

  // Adds an entry read from disk (already committed). False when it was already present.
  bool AddCommitted(int64_t ts, std::string_view sys_id, uint32_t mod_count);
  // True when some entry in memory has ts < bound.
  bool HasEntryBelow(int64_t bound) const;
  using Visitor = std::function<void(int64_t ts, std::string_view sys_id, uint32_t mod)>;
  // True when entries were inserted in timestamp order since the last sort (so the entries
  // below any bound are the oldest ones: pruning them takes them from the front).
  bool ts_ordered() const { return ts_ordered_; }
  // How many entries in memory have ts < bound, counting up to `limit`.
  size_t CountBelow(int64_t bound, size_t limit) const;
  // The entries written by Insert since the last commit, oldest first.
  void ForEachPending(const Visitor& fn) const;
  // Committed entries dropped by the cap since the last commit: disk still holds their blocks.
  void ForEachEvicted(const Visitor& fn) const;
  // After a successful commit: nothing pending or evicted any more, entries with ts < bound
  // dropped, so memory holds exactly what the commit left on disk.
  void OnCommitted(int64_t bound);

  // ---- the disk side ----------------------------------------------------------------------
  // On disk a table's entries live in blocks, one RocksDB value per commit (state/dedup_block.h),
  // keyed by a sequence number. Invariant: the blocks in key order hold the committed entries
  // the cap evicted since the last commit, then the committed entries in memory, in memory's
  // order. Memory drops entries only from its front (the cap, pruning in ts order) or sorts
  // them all (pruning out of order), so a commit deletes whole blocks at the front, rewrites
  // at most one block cut in the middle, appends the new entries, or rewrites everything.
  struct DiskPlan {
    size_t deleted = 0;  // blocks [delete_from, delete_to) go (the range holds no other block)
    uint64_t delete_from = 0;
    uint64_t delete_to = 0;
    std::vector<std::pair<uint64_t, std::string>> puts;  // block seq -> value
  };
  // What a commit that passes `bound` to OnCommitted changes on disk.
  DiskPlan PlanCommit(int64_t bound);
  // While loading: the AddCommitted calls that follow read block `seq`.
  void BeginLoadedBlock(uint64_t seq);

 private:
  struct Entry {
    int64_t ts;
    uint64_t hi;  // hex id: first 16 digits; interned id: intern number
    uint64_t lo;  // hex id: last 16 digits; interned id: 0
    uint32_t mod;
    uint32_t interned;  // 0: packed hex id, 1: interned id
    bool operator==(const Entry&) const = default;
  };
  struct InternSlot {
    uint32_t id;
    uint32_t refs;
  };
  struct SvHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  // Fills `e` for a lookup; false when the id is non-hex and not interned (so absent).
  bool MakeProbe(int64_t ts, std::string_view sys_id, uint32_t mod, Entry* e) const;
  static uint64_t Hash(const Entry& e);
  size_t FindSlot(const Entry& e, uint64_t h) const;  // npos when absent
  size_t FindSlotOfPosition(uint64_t h, size_t phys) const;
  void IndexInsert(uint64_t h, size_t phys);
  void IndexEraseAt(size_t slot);
  void RebuildIndex();
  bool InsertEntry(int64_t ts, std::string_view sys_id, uint32_t mod, bool pending);
  void EvictFront();
  void DropFront();  // removes the front entry for good (releasing its intern reference)
  void Grow();
  uint32_t Intern(std::string_view sys_id);
  void Release(const Entry& e);
  std::string_view SysIdOf(const Entry& e, char (&buf)[32]) const;
  // Ring position of the i-th oldest entry. The ring is not a power of two (a full window of
  // 50 000 would waste 31 % of it), so wrap by subtraction.
  size_t Phys(size_t i) const {
    const size_t p = head_ + i;
    return p >= ring_.size() ? p - ring_.size() : p;
  }
  const Entry& At(size_t i) const { return ring_[Phys(i)]; }

  static constexpr size_t kNpos = ~size_t{0};

  std::string instance_;
  std::string table_;
  DedupPolicy policy_;
  const void* owner_;
  std::string key_prefix_;

  std::vector<Entry> ring_;  // grows by doubling up to window_records
  size_t head_ = 0;
  size_t size_ = 0;
  size_t pending_ = 0;      // the last `pending_` entries of the ring are uncommitted
  bool ts_ordered_ = true;  // entries were inserted in non-decreasing ts order
  // ts of the last insert, evicted or not (an evicted entry must not be newer than a kept one
  // for the ordered pruning path to be exact).
  std::optional<int64_t> last_ts_;

  std::vector<uint64_t> slots_;  // 0 = empty, else (hash low 32 bits << 32) | (ring pos + 1)
  size_t slot_mask_ = 0;

  std::vector<Entry> evicted_;

  struct Block {
    uint64_t seq;
    size_t count;  // entries of the block still in memory or in evicted_
  };
  // The disk side, in key order; see the invariant above PlanCommit.
  std::deque<Block> blocks_;
  uint64_t next_seq_ = 1;
  // What PlanCommit worked out, for OnCommitted to adopt.
  struct Staged {
    int64_t bound;
    std::deque<Block> blocks;
    uint64_t next_seq;
  };
  std::optional<Staged> staged_;
  void AppendToBlock(const Entry& e, std::string* value) const;
  // The entries at or above `bound`, in ts order (ties in memory's order): what memory keeps
  // when a commit prunes out of order.
  std::vector<Entry> SortedAtOrAbove(int64_t bound) const;

  std::unordered_map<std::string, InternSlot, SvHash, std::equal_to<>> interned_;
  std::vector<const std::string*> intern_names_;  // by intern number
  std::vector<uint32_t> free_intern_ids_;
};

}  // namespace snowcar::state
