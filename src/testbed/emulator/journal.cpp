// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/emulator/journal.h"

namespace snowcar::emulator {

uint64_t Journal::Add(JournalEntry entry) {
  std::lock_guard lock(mu_);
  entry.seq = next_seq_++;
  const uint64_t seq = entry.seq;
  entries_.push_back(std::move(entry));
  while (entries_.size() > capacity_) entries_.pop_front();
  return seq;
}

std::vector<JournalEntry> Journal::Since(uint64_t after_seq) const {
  std::lock_guard lock(mu_);
  std::vector<JournalEntry> out;
  for (const auto& e : entries_) {
    if (e.seq > after_seq) out.push_back(e);
  }
  return out;
}

size_t Journal::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void Journal::Clear() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

}  // namespace snowcar::emulator
