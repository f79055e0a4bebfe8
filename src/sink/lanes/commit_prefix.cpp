// SPDX-License-Identifier: Apache-2.0
#include "commit_prefix.h"

#include <algorithm>
#include <vector>

namespace snowcar::sink {
namespace {

// Versioned, so a later format is never misread: "snowcar-k1:" then a bitset in hex, four
// offsets per digit, digit j bit k standing for offset committed + 4j + k.
constexpr std::string_view kPrefix = "snowcar-k1:";
constexpr char kHex[] = "0123456789abcdef";

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::deque<CommitPrefix::Entry>::iterator CommitPrefix::Find(int64_t offset) {
  return std::lower_bound(tracked_.begin(), tracked_.end(), offset,
                          [](const Entry& e, int64_t o) { return e.offset < o; });
}

void CommitPrefix::Reset(int64_t committed, std::string_view metadata) {
  tracked_.clear();
  done_held_ = 0;
  next_ = committed;
  seeded_ = committed >= 0 ? ParseMetadata(committed, metadata) : std::set<int64_t>{};
}

bool CommitPrefix::Track(int64_t offset) {
  if (next_ >= 0 && offset < next_) return true;  // below the commit: done long ago
  if (next_ < 0) next_ = offset;
  auto it = Find(offset);
  if (it != tracked_.end() && it->offset == offset) return it->done;  // tracked already
  const bool done = seeded_.erase(offset) != 0;
  tracked_.insert(it, Entry{offset, done});  // at the end, as records come in offset order
  if (done) ++done_held_;
  Advance();
  return done;
}

void CommitPrefix::MarkDone(int64_t offset) {
  auto it = Find(offset);
  if (it == tracked_.end() || it->offset != offset || it->done) return;
  it->done = true;
  ++done_held_;
  Advance();
}

void CommitPrefix::Advance() {
  while (!tracked_.empty() && tracked_.front().done) {
    next_ = tracked_.front().offset + 1;
    tracked_.pop_front();
    --done_held_;
  }
  if (!tracked_.empty()) next_ = tracked_.front().offset;
  seeded_.erase(seeded_.begin(), seeded_.lower_bound(next_));
}

std::string CommitPrefix::Metadata() const {
  if (next_ < 0 || (done_held_ == 0 && seeded_.empty())) return "";
  // Every done offset is at or above next_: tracked_ starts at the first one not done, and
  // Advance() drops the seeded ones below it.
  int64_t last = seeded_.empty() ? -1 : *seeded_.rbegin();
  for (auto it = tracked_.rbegin(); done_held_ > 0 && it != tracked_.rend(); ++it) {
    if (it->done) {
      last = std::max(last, it->offset);
      break;
    }
  }
  const size_t digits = std::min<size_t>(static_cast<size_t>((last - next_) / 4 + 1),
                                         kMaxMetadataChars - kPrefix.size());
  std::string bits(digits, 0);
  auto set = [&](int64_t offset) {
    const auto rel = static_cast<size_t>(offset - next_);
    if (rel / 4 >= digits) return false;
    bits[rel / 4] = static_cast<char>(bits[rel / 4] | (1 << (rel % 4)));
    return true;
  };
  for (const Entry& e : tracked_) {
    if (e.done && !set(e.offset)) break;
  }
  for (int64_t offset : seeded_) {
    if (!set(offset)) break;
  }
  std::string out(kPrefix);
  out.reserve(kPrefix.size() + digits);
  for (char b : bits) out += kHex[static_cast<unsigned char>(b)];
  return out;
}

std::set<int64_t> CommitPrefix::ParseMetadata(int64_t committed, std::string_view metadata) {
  std::set<int64_t> out;
  if (metadata.substr(0, kPrefix.size()) != kPrefix || committed < 0) return out;
  const std::string_view bits = metadata.substr(kPrefix.size());
  for (size_t j = 0; j < bits.size(); ++j) {
    const int v = HexValue(bits[j]);
    if (v < 0) return {};
    for (int k = 0; k < 4; ++k) {
      if ((v & (1 << k)) != 0) out.insert(committed + static_cast<int64_t>(j * 4) + k);
    }
  }
  return out;
}

}  // namespace snowcar::sink
