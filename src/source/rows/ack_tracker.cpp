// SPDX-License-Identifier: Apache-2.0
#include "snowcar/source/rows/ack_tracker.h"

namespace snowcar::source {

AckTracker::Ticket AckTracker::Add(state::Cursor position) {
  const Ticket ticket = next_++;
  entries_.push_back(Entry{ticket, std::move(position), false});
  return ticket;
}

AckTracker::Entry* AckTracker::Find(Ticket ticket) {
  if (entries_.empty() || ticket < entries_.front().ticket) return nullptr;
  const Ticket index = ticket - entries_.front().ticket;
  if (index >= entries_.size()) return nullptr;
  return &entries_[index];
}

void AckTracker::Ack(Ticket ticket) {
  if (Entry* entry = Find(ticket)) entry->acked = true;
}

void AckTracker::Fail(Ticket ticket) {
  if (Find(ticket) == nullptr) return;
  if (!failed_ || ticket < failed_at_) failed_at_ = ticket;
  failed_ = true;
}

std::optional<state::Cursor> AckTracker::TakeCommittable() {
  std::optional<state::Cursor> last;
  while (!entries_.empty() && entries_.front().acked &&
         !(failed_ && entries_.front().ticket >= failed_at_)) {
    last = std::move(entries_.front().position);
    entries_.pop_front();
  }
  return last;
}

void AckTracker::Reset() {
  // Tickets keep counting up, so a late report for a row added before the reset finds no
  // entry and is ignored.
  entries_.clear();
  failed_ = false;
  failed_at_ = 0;
}

}  // namespace snowcar::source
