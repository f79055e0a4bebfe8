// SPDX-License-Identifier: Apache-2.0
#include "table_store_index.h"

#include <algorithm>

namespace snowcar::emulator {
namespace {

// <0 when the entry sorts before the probe, >0 after, 0 on an exact match.
int CompareToProbe(const IndexEntry& e, const IndexProbe& p) {
  int c = e.ts.compare(p.ts);
  if (c != 0) return c;
  switch (p.id_mode) {
    case IndexProbe::Id::kBeforeAll:
      return 1;
    case IndexProbe::Id::kAfterAll:
      return -1;
    case IndexProbe::Id::kExact:
      return e.id.compare(p.id);
  }
  return 0;
}

bool EntryLess(const IndexEntry& a, const IndexEntry& b) {
  int c = a.ts.compare(b.ts);
  if (c != 0) return c < 0;
  return a.id < b.id;
}

}  // namespace

void KeysetIndex::RefreshPrefix() {
  before_.resize(leaves_.size());
  size_t n = 0;
  for (size_t i = 0; i < leaves_.size(); ++i) {
    before_[i] = n;
    n += leaves_[i].size();
  }
  size_ = n;
}

size_t KeysetIndex::LeafFor(const IndexProbe& probe) const {
  // First leaf whose last entry is not before the probe.
  size_t lo = 0, hi = leaves_.size();
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (CompareToProbe(leaves_[mid].back(), probe) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t KeysetIndex::LowerBound(const IndexProbe& probe) const {
  size_t leaf = LeafFor(probe);
  if (leaf == leaves_.size()) return size_;
  const auto& l = leaves_[leaf];
  auto it = std::partition_point(l.begin(), l.end(),
                                 [&](const IndexEntry& e) { return CompareToProbe(e, probe) < 0; });
  return before_[leaf] + static_cast<size_t>(it - l.begin());
}

size_t KeysetIndex::UpperBoundExact(std::string_view ts, std::string_view id) const {
  IndexProbe probe{ts, IndexProbe::Id::kExact, id};
  size_t rank = LowerBound(probe);
  if (rank < size_) {
    const IndexEntry& e = At(Seek(rank));
    if (e.ts == ts && e.id == id) ++rank;
  }
  return rank;
}

void KeysetIndex::Insert(const IndexEntry& entry) {
  if (leaves_.empty()) {
    leaves_.emplace_back();
    leaves_.back().reserve(kMaxLeaf);
    leaves_.back().push_back(entry);
    RefreshPrefix();
    return;
  }
  IndexProbe probe{entry.ts, IndexProbe::Id::kExact, entry.id};
  size_t leaf = std::min(LeafFor(probe), leaves_.size() - 1);
  auto& l = leaves_[leaf];
  auto it = std::partition_point(l.begin(), l.end(),
                                 [&](const IndexEntry& e) { return CompareToProbe(e, probe) < 0; });
  l.insert(it, entry);
  if (l.size() > kMaxLeaf) {
    std::vector<IndexEntry> upper(l.begin() + static_cast<std::ptrdiff_t>(kMaxLeaf / 2), l.end());
    l.resize(kMaxLeaf / 2);
    upper.reserve(kMaxLeaf);
    leaves_.insert(leaves_.begin() + static_cast<std::ptrdiff_t>(leaf) + 1, std::move(upper));
  }
  RefreshPrefix();
}

bool KeysetIndex::Erase(std::string_view ts, std::string_view id) {
  IndexProbe probe{ts, IndexProbe::Id::kExact, id};
  size_t leaf = LeafFor(probe);
  if (leaf == leaves_.size()) return false;
  auto& l = leaves_[leaf];
  auto it = std::partition_point(l.begin(), l.end(),
                                 [&](const IndexEntry& e) { return CompareToProbe(e, probe) < 0; });
  if (it == l.end() || it->ts != ts || it->id != id) return false;
  l.erase(it);
  if (l.empty()) leaves_.erase(leaves_.begin() + static_cast<std::ptrdiff_t>(leaf));
  RefreshPrefix();
  return true;
}

void KeysetIndex::Rebuild(std::vector<IndexEntry> entries) {
  std::sort(entries.begin(), entries.end(), EntryLess);
  leaves_.clear();
  constexpr size_t kFill = kMaxLeaf * 3 / 4;
  for (size_t i = 0; i < entries.size(); i += kFill) {
    size_t end = std::min(entries.size(), i + kFill);
    std::vector<IndexEntry> leaf;
    leaf.reserve(kMaxLeaf);
    leaf.assign(entries.begin() + static_cast<std::ptrdiff_t>(i),
                entries.begin() + static_cast<std::ptrdiff_t>(end));
    leaves_.push_back(std::move(leaf));
  }
  RefreshPrefix();
}

KeysetIndex::Cursor KeysetIndex::Seek(size_t rank) const {
  auto it = std::upper_bound(before_.begin(), before_.end(), rank);
  size_t leaf = static_cast<size_t>(it - before_.begin()) - 1;
  return {leaf, rank - before_[leaf]};
}

void KeysetIndex::Next(Cursor& c) const {
  if (++c.pos >= leaves_[c.leaf].size()) {
    ++c.leaf;
    c.pos = 0;
  }
}

void KeysetIndex::Prev(Cursor& c) const {
  if (c.pos > 0) {
    --c.pos;
  } else if (c.leaf > 0) {
    --c.leaf;
    c.pos = leaves_[c.leaf].size() - 1;
  }
}

bool KeysetIndex::CheckInvariants() const {
  size_t n = 0;
  const IndexEntry* prev = nullptr;
  for (size_t i = 0; i < leaves_.size(); ++i) {
    if (leaves_[i].empty() || leaves_[i].size() > kMaxLeaf) return false;
    if (before_[i] != n) return false;
    for (const IndexEntry& e : leaves_[i]) {
      if (prev != nullptr && !EntryLess(*prev, e)) return false;
      if (e.row == nullptr || e.row->sys_id() != e.id || e.row->sys_updated_on() != e.ts) {
        return false;
      }
      prev = &e;
    }
    n += leaves_[i].size();
  }
  return n == size_;
}

}  // namespace snowcar::emulator
