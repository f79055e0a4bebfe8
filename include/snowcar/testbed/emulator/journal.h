// SPDX-License-Identifier: Apache-2.0
// A record of every Table API, OAuth and Batch request the emulator received.
//
// Tests assert on traffic (how many pages a poller fetched, which auth it used, whether it
// retried after a 429) by reading this journal instead of instrumenting the client. Control
// requests (/_emulator/...) are not journaled, so reading the journal does not change it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace snowcar::emulator {

struct JournalEntry {
  uint64_t seq = 0;     // 1, 2, 3, ... in arrival order; never reused, even after Clear
  int64_t time_ms = 0;  // emulator clock at arrival
  std::string method;   // "GET", "POST", ...
  std::string target;   // path and query as received
  std::string auth;     // "none", "basic", "bearer" (as presented, valid or not)
  std::string user;     // the authenticated user, "" when authentication failed
  int status = 0;       // status sent (or that would have been sent, for a dropped reply)
  std::string fault;    // the fault applied ("" for none), e.g. "rate_limit", "drop"
};

class Journal {
 public:
  explicit Journal(size_t capacity = 100000) : capacity_(capacity) {}

  // Appends and returns the entry's seq; the oldest entries go once capacity is reached.
  uint64_t Add(JournalEntry entry);
  // Entries with seq > `after_seq`, oldest first.
  std::vector<JournalEntry> Since(uint64_t after_seq = 0) const;
  std::vector<JournalEntry> All() const { return Since(0); }
  size_t size() const;
  void Clear();

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<JournalEntry> entries_;
  uint64_t next_seq_ = 1;
};

}  // namespace snowcar::emulator
