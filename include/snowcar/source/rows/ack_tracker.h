// SPDX-License-Identifier: Apache-2.0
// Which prefix of a table's emitted rows Kafka has acknowledged (Kafka Connect's
// SubmittedRecords, for one table).
//
// The poller Add()s every row in read order with the cursor position it stands for; a
// produced row is acknowledged by its delivery report, a suppressed duplicate at once. The
// committable cursor is the position of the last row of the contiguous acknowledged prefix:
// a row acknowledged out of order waits until everything before it is acknowledged too.
//
// Not thread-safe: owned by the table's poller strand.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "snowcar/state/state_store.h"

namespace snowcar::source {

class AckTracker {
 public:
  using Ticket = uint64_t;

  // Registers the next row in read order; its position is where the cursor may move once it
  // and everything before it are acknowledged.
  Ticket Add(state::Cursor position);
  // Marks a row acknowledged. Unknown or repeated tickets are ignored.
  void Ack(Ticket ticket);
  // Marks a row failed: nothing at or after it becomes committable until Reset().
  void Fail(Ticket ticket);

  // Pops the acknowledged prefix and returns the position of its last row, or nullopt when
  // the prefix is empty (nothing new to commit).
  std::optional<state::Cursor> TakeCommittable();

  bool failed() const { return failed_; }
  size_t outstanding() const { return entries_.size(); }  // added, not yet taken
  // Forgets everything (after a failure, before re-reading from the committed cursor).
  void Reset();

 private:
  struct Entry {
    Ticket ticket;
    state::Cursor position;
    bool acked = false;
  };
  // The entry of `ticket`, or nullptr when it was taken, reset away or never issued. Tickets
  // in entries_ are consecutive, so this is an index computation.
  Entry* Find(Ticket ticket);

  std::deque<Entry> entries_;
  Ticket next_ = 0;
  bool failed_ = false;
  Ticket failed_at_ = 0;  // the first failed ticket, when failed_
};

}  // namespace snowcar::source
