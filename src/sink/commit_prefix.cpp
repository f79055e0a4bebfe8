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

void CommitPrefix::Reset(int64_t committed, std::string_view metadata) {
  tracked_.clear();
  next_ = committed;
  seeded_ = committed >= 0 ? ParseMetadata(committed, metadata) : std::set<int64_t>{};
}

bool CommitPrefix::Track(int64_t offset) {
  if (next_ >= 0 && offset < next_) return true;  // below the commit: done long ago
  if (next_ < 0) next_ = offset;
  if (seeded_.erase(offset) != 0) {
    tracked_[offset] = true;
    Advance();
    return true;
  }
  tracked_.emplace(offset, false);
  Advance();
  return false;
}

void CommitPrefix::MarkDone(int64_t offset) {
  auto it = tracked_.find(offset);
  if (it == tracked_.end()) return;
  it->second = true;
  Advance();
}

void CommitPrefix::Advance() {
  while (!tracked_.empty() && tracked_.begin()->second) {
    next_ = tracked_.begin()->first + 1;
    tracked_.erase(tracked_.begin());
  }
  if (!tracked_.empty()) next_ = tracked_.begin()->first;
  seeded_.erase(seeded_.begin(), seeded_.lower_bound(next_));
}

std::string CommitPrefix::Metadata() const {
  std::vector<int64_t> done;
  for (const auto& [offset, is_done] : tracked_) {
    if (is_done) done.push_back(offset);
  }
  done.insert(done.end(), seeded_.begin(), seeded_.end());
  if (done.empty() || next_ < 0) return "";
  std::sort(done.begin(), done.end());
  const size_t digits = std::min<size_t>(static_cast<size_t>((done.back() - next_) / 4 + 1),
                                         kMaxMetadataChars - kPrefix.size());
  std::string bits(digits, 0);
  for (int64_t offset : done) {
    const auto rel = static_cast<size_t>(offset - next_);
    if (rel / 4 >= digits) break;
    bits[rel / 4] = static_cast<char>(bits[rel / 4] | (1 << (rel % 4)));
  }
  std::string out(kPrefix);
  for (char b : bits) out += kHex[static_cast<int>(b)];
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
