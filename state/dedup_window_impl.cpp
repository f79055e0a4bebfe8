// SPDX-License-Identifier: Apache-2.0
#include "state/dedup_window_impl.h"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>

#include "state/dedup_block.h"
#include "state/key_codec.h"

namespace snowcar::state {
namespace {

constexpr size_t kMinRing = 64;

// A commit's new entries go into blocks of at most this many, so a block that a later commit
// cuts in the middle (and rewrites) stays small.
constexpr size_t kBlockEntries = 4096;

using block::PackHexId;
using block::UnpackHexId;

}  // namespace

DedupWindowImpl::DedupWindowImpl(std::string instance, std::string table, const DedupPolicy& policy,
                                 const void* owner)
    : instance_(std::move(instance)),
      table_(std::move(table)),
      policy_(policy),
      owner_(owner),
      key_prefix_(codec::DedupPrefix(instance_, table_)) {
  ring_.resize(std::max<size_t>(1, std::min(kMinRing, policy_.window_records)));
  RebuildIndex();
}

uint64_t DedupWindowImpl::Hash(const Entry& e) {
  uint64_t h = e.lo ^ (e.hi * 0x9E3779B97F4A7C15ull) ^
               (static_cast<uint64_t>(e.ts) * 0xC2B2AE3D27D4EB4Full) ^
               (((static_cast<uint64_t>(e.mod) << 1) | e.interned) * 0x165667B19E3779F9ull);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return h;
}

bool DedupWindowImpl::MakeProbe(int64_t ts, std::string_view sys_id, uint32_t mod, Entry* e) const {
  e->ts = ts;
  e->mod = mod;
  if (PackHexId(sys_id, &e->hi, &e->lo)) {
    e->interned = 0;
    return true;
  }
  auto it = interned_.find(sys_id);
  if (it == interned_.end()) return false;
  e->hi = it->second.id;
  e->lo = 0;
  e->interned = 1;
  return true;
}

size_t DedupWindowImpl::FindSlot(const Entry& e, uint64_t h) const {
  const uint64_t tag = h & 0xffffffffull;
  for (size_t i = h & slot_mask_;; i = (i + 1) & slot_mask_) {
    const uint64_t s = slots_[i];
    if (s == 0) return kNpos;
    if ((s >> 32) == tag && ring_[(s & 0xffffffffull) - 1] == e) return i;
  }
}

size_t DedupWindowImpl::FindSlotOfPosition(uint64_t h, size_t phys) const {
  for (size_t i = h & slot_mask_;; i = (i + 1) & slot_mask_) {
    const uint64_t s = slots_[i];
    if (s == 0) return kNpos;
    if ((s & 0xffffffffull) == phys + 1) return i;
  }
}

void DedupWindowImpl::IndexInsert(uint64_t h, size_t phys) {
  size_t i = h & slot_mask_;
  while (slots_[i] != 0) i = (i + 1) & slot_mask_;
  slots_[i] = ((h & 0xffffffffull) << 32) | (phys + 1);
}

// Backward-shift deletion: keeps every probe chain unbroken without tombstones.
void DedupWindowImpl::IndexEraseAt(size_t hole) {
  size_t j = hole;
  for (;;) {
    j = (j + 1) & slot_mask_;
    const uint64_t s = slots_[j];
    if (s == 0) break;
    const size_t home = (s >> 32) & slot_mask_;
    // The entry at j may fill the hole when its home is not cyclically within (hole, j].
    if (((j - home) & slot_mask_) >= ((j - hole) & slot_mask_)) {
      slots_[hole] = s;
      hole = j;
    }
  }
  slots_[hole] = 0;
}

void DedupWindowImpl::RebuildIndex() {
  slots_.assign(std::bit_ceil(ring_.size() * 2), 0);
  slot_mask_ = slots_.size() - 1;
  for (size_t i = 0; i < size_; ++i) {
    const size_t phys = Phys(i);
    IndexInsert(Hash(ring_[phys]), phys);
  }
}

void DedupWindowImpl::Grow() {
  std::vector<Entry> bigger(std::min(ring_.size() * 2, policy_.window_records));
  for (size_t i = 0; i < size_; ++i) bigger[i] = At(i);
  ring_ = std::move(bigger);
  head_ = 0;
  RebuildIndex();
}

uint32_t DedupWindowImpl::Intern(std::string_view sys_id) {
  auto it = interned_.find(sys_id);
  if (it != interned_.end()) {
    ++it->second.refs;
    return it->second.id;
  }
  uint32_t id;
  if (!free_intern_ids_.empty()) {
    id = free_intern_ids_.back();
    free_intern_ids_.pop_back();
  } else {
    id = static_cast<uint32_t>(intern_names_.size());
    intern_names_.push_back(nullptr);
  }
  auto [pos, inserted] = interned_.emplace(std::string(sys_id), InternSlot{id, 1});
  (void)inserted;
  intern_names_[id] = &pos->first;
  return id;
}

void DedupWindowImpl::Release(const Entry& e) {
  if (e.interned == 0) return;
  const std::string* name = intern_names_[e.hi];
  auto it = interned_.find(*name);
  if (--it->second.refs == 0) {
    intern_names_[e.hi] = nullptr;
    free_intern_ids_.push_back(static_cast<uint32_t>(e.hi));
    interned_.erase(it);
  }
}

std::string_view DedupWindowImpl::SysIdOf(const Entry& e, char (&buf)[32]) const {
  if (e.interned != 0) return *intern_names_[e.hi];
  UnpackHexId(e.hi, e.lo, buf);
  return {buf, 32};
}

bool DedupWindowImpl::Contains(int64_t ts, std::string_view sys_id, uint32_t mod) const {
  Entry e;
  if (!MakeProbe(ts, sys_id, mod, &e)) return false;
  return FindSlot(e, Hash(e)) != kNpos;
}

bool DedupWindowImpl::Insert(int64_t ts, std::string_view sys_id, uint32_t mod) {
  return InsertEntry(ts, sys_id, mod, /*pending=*/true);
}

bool DedupWindowImpl::AddCommitted(int64_t ts, std::string_view sys_id, uint32_t mod) {
  return InsertEntry(ts, sys_id, mod, /*pending=*/false);
}

bool DedupWindowImpl::InsertEntry(int64_t ts, std::string_view sys_id, uint32_t mod, bool pending) {
  Entry e;
  const bool known_id = MakeProbe(ts, sys_id, mod, &e);
  if (known_id && FindSlot(e, Hash(e)) != kNpos) return false;
  // A window of 0 records keeps nothing: every row counts as new.
  if (policy_.window_records == 0) return true;
  // Take the intern reference before evicting, which may drop the last other reference.
  if (!known_id || e.interned != 0) {
    e.hi = Intern(sys_id);
    e.lo = 0;
    e.interned = 1;
  }
  if (size_ >= policy_.window_records) EvictFront();
  if (size_ == ring_.size()) Grow();
  if (last_ts_ && ts < *last_ts_) ts_ordered_ = false;
  last_ts_ = ts;
  const size_t phys = Phys(size_);
  ring_[phys] = e;
  ++size_;
  if (pending) {
    ++pending_;
  } else {
    // A committed entry belongs to the block being loaded (one is opened if the caller did
    // not say which: the next commit then writes it).
    if (blocks_.empty()) BeginLoadedBlock(next_seq_);
    ++blocks_.back().count;
  }
  IndexInsert(Hash(e), phys);
  return true;
}

void DedupWindowImpl::EvictFront() {
  const Entry front = ring_[head_];
  const bool was_pending = size_ <= pending_;
  IndexEraseAt(FindSlotOfPosition(Hash(front), head_));
  head_ = Phys(1);
  --size_;
  if (was_pending) {
    // Never reached the disk: forget it entirely.
    --pending_;
    Release(front);
  } else {
    evicted_.push_back(front);  // keeps its intern reference until the commit deletes it
  }
}

void DedupWindowImpl::DropFront() {
  const Entry front = ring_[head_];
  IndexEraseAt(FindSlotOfPosition(Hash(front), head_));
  head_ = Phys(1);
  --size_;
  Release(front);
}

bool DedupWindowImpl::HasEntryBelow(int64_t bound) const {
  if (size_ == 0 || bound == std::numeric_limits<int64_t>::min()) return false;
  if (ts_ordered_) return At(0).ts < bound;
  for (size_t i = 0; i < size_; ++i) {
    if (At(i).ts < bound) return true;
  }
  return false;
}

size_t DedupWindowImpl::CountBelow(int64_t bound, size_t limit) const {
  size_t n = 0;
  for (size_t i = 0; i < size_ && n < limit; ++i) {
    if (At(i).ts < bound) {
      ++n;
    } else if (ts_ordered_) {
      break;
    }
  }
  return n;
}

void DedupWindowImpl::ForEachPending(const Visitor& fn) const {
  char buf[32];
  for (size_t i = size_ - pending_; i < size_; ++i) {
    const Entry& e = At(i);
    fn(e.ts, SysIdOf(e, buf), e.mod);
  }
}

void DedupWindowImpl::ForEachEvicted(const Visitor& fn) const {
  char buf[32];
  for (const Entry& e : evicted_) fn(e.ts, SysIdOf(e, buf), e.mod);
}

void DedupWindowImpl::OnCommitted(int64_t bound) {
  if (!staged_ || staged_->bound != bound) (void)PlanCommit(bound);
  blocks_ = std::move(staged_->blocks);
  next_seq_ = staged_->next_seq;
  staged_.reset();
  for (const Entry& e : evicted_) Release(e);
  evicted_.clear();
  pending_ = 0;
  if (ts_ordered_) {
    while (size_ > 0 && At(0).ts < bound) DropFront();
    if (size_ == 0) last_ts_.reset();
    return;
  }
  // Rows arrived out of timestamp order (parallel backfill ranges, or a single sweep's rare
  // late row). Nothing below the bound (the commit deferred pruning): nothing to do. Else
  // keep what is at or above the bound, put it in ts order so pruning and the cap work from
  // the front again, and rebuild the index.
  if (!HasEntryBelow(bound)) {
    if (size_ == 0) {
      ts_ordered_ = true;
      last_ts_.reset();
    }
    return;
  }
  std::vector<Entry> kept = SortedAtOrAbove(bound);
  for (size_t i = 0; i < size_; ++i) {
    if (At(i).ts < bound) Release(At(i));
  }
  std::fill(ring_.begin(), ring_.end(), Entry{});
  std::copy(kept.begin(), kept.end(), ring_.begin());
  head_ = 0;
  size_ = kept.size();
  ts_ordered_ = true;
  last_ts_.reset();
  if (size_ > 0) last_ts_ = At(size_ - 1).ts;
  RebuildIndex();
}

std::vector<DedupWindowImpl::Entry> DedupWindowImpl::SortedAtOrAbove(int64_t bound) const {
  std::vector<Entry> kept;
  kept.reserve(size_);
  for (size_t i = 0; i < size_; ++i) {
    if (At(i).ts >= bound) kept.push_back(At(i));
  }
  std::stable_sort(kept.begin(), kept.end(),
                   [](const Entry& a, const Entry& b) { return a.ts < b.ts; });
  return kept;
}

// ---- the disk side ------------------------------------------------------------------------

void DedupWindowImpl::BeginLoadedBlock(uint64_t seq) {
  blocks_.push_back(Block{seq, 0});
  next_seq_ = std::max(next_seq_, seq + 1);
}

void DedupWindowImpl::AppendToBlock(const Entry& e, std::string* value) const {
  if (e.interned != 0) {
    block::AppendId(value, e.ts, *intern_names_[e.hi], e.mod);
  } else {
    block::AppendHex(value, e.ts, e.hi, e.lo, e.mod);
  }
}

DedupWindowImpl::DiskPlan DedupWindowImpl::PlanCommit(int64_t bound) {
  DiskPlan plan;
  Staged next{bound, blocks_, next_seq_};
  // Appends blocks holding entries [0, n) of `at`, kBlockEntries at most each.
  auto append = [&](size_t n, auto&& at) {
    for (size_t i = 0; i < n;) {
      const size_t end = std::min(n, i + kBlockEntries);
      std::string value;
      value.reserve(1 + (end - i) * 29);
      block::Begin(&value);
      for (size_t j = i; j < end; ++j) AppendToBlock(at(j), &value);
      plan.puts.emplace_back(next.next_seq, std::move(value));
      next.blocks.push_back(Block{next.next_seq++, end - i});
      i = end;
    }
  };
  auto drop_front = [&](size_t k) {
    while (!next.blocks.empty() && next.blocks.front().count <= k) {
      if (plan.deleted++ == 0) plan.delete_from = next.blocks.front().seq;
      plan.delete_to = next.blocks.front().seq + 1;
      k -= next.blocks.front().count;
      next.blocks.pop_front();
    }
    return k;
  };
  const size_t committed = size_ - pending_;
  if (!ts_ordered_ && HasEntryBelow(bound)) {
    // Memory sorts what stays (OnCommitted): every block goes, the kept entries are written
    // afresh in their new order.
    drop_front(~size_t{0});
    const std::vector<Entry> kept = SortedAtOrAbove(bound);
    append(kept.size(), [&](size_t j) -> const Entry& { return kept[j]; });
  } else {
    // Memory drops the evicted entries and, in ts order, the front entries below the bound.
    const size_t below = ts_ordered_ ? CountBelow(bound, size_) : 0;
    const size_t dropped_committed = std::min(below, committed);
    const size_t cut = drop_front(evicted_.size() + dropped_committed);
    if (cut > 0 && !next.blocks.empty()) {
      // The front block loses its first `cut` entries: rewrite it with the rest, which are
      // the first entries memory keeps.
      Block& front = next.blocks.front();
      front.count -= cut;
      std::string value;
      block::Begin(&value);
      for (size_t i = 0; i < front.count; ++i) AppendToBlock(At(dropped_committed + i), &value);
      plan.puts.emplace_back(front.seq, std::move(value));
    }
    const size_t first_new = std::max(below, committed);
    append(size_ - first_new, [&](size_t j) -> const Entry& { return At(first_new + j); });
  }
  staged_ = std::move(next);
  return plan;
}

}  // namespace snowcar::state
