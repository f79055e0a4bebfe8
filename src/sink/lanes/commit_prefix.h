// SPDX-License-Identifier: Apache-2.0
// The offsets of one partition under snow.sink.ordering=key, between its committed offset
// and its newest record. Records finish out of offset order there (a slow key holds its
// record while other keys go on), so the offset to commit is the first record NOT done, and
// the records done above it are listed in the commit's metadata: whoever owns the partition
// next (this process after a restart, or another member after a rebalance) reads them back
// and skips them instead of writing them again.
//
// Offsets need not be contiguous (compaction, transaction markers): only records that were
// tracked count, so a gap never holds the prefix.
//
// Not thread-safe: the keyed lane calls it under its lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <string_view>

namespace snowcar::sink {

class CommitPrefix {
 public:
  // The metadata is at most this long (the broker's offset.metadata.max.bytes defaults to
  // 4096): 12 000 offsets above the committed one. Done records past that are left out, and
  // would be written again by the next owner.
  static constexpr size_t kMaxMetadataChars = 3000;

  // Starts over at `committed` (the next offset to read), with `metadata` (what an earlier
  // owner committed with it; unknown or empty text: nothing done above it).
  void Reset(int64_t committed, std::string_view metadata);

  // A record arrived. True when it is already done (listed in the metadata it started from):
  // the caller must not apply it again.
  bool Track(int64_t offset);
  // The tracked record at `offset` is done.
  void MarkDone(int64_t offset);

  // The offset to commit: the first tracked record not yet done, or one past the newest done
  // record when all are. -1 before anything was tracked or reset.
  int64_t next() const { return next_; }
  // Records held: from the first one not done through the newest one tracked.
  size_t held() const { return tracked_.size(); }
  // The done offsets above next(), as commit metadata ("" when none). The keyed lane asks
  // after every completion, so this is one pass over the held records in offset order.
  std::string Metadata() const;

  // The done offsets `metadata` lists above `committed`; empty for text not written by
  // Metadata() (another client's metadata, a damaged value).
  static std::set<int64_t> ParseMetadata(int64_t committed, std::string_view metadata);

 private:
  struct Entry {
    int64_t offset;
    bool done;
  };
  // The entry at `offset`, or where it would go.
  std::deque<Entry>::iterator Find(int64_t offset);
  void Advance();

  int64_t next_ = -1;
  // From the first record not done, in offset order (records arrive in offset order; a
  // deque rather than a map because Metadata() walks it after every completion).
  std::deque<Entry> tracked_;
  size_t done_held_ = 0;      // entries of tracked_ that are done
  std::set<int64_t> seeded_;  // done by an earlier owner, not tracked yet
};

}  // namespace snowcar::sink
