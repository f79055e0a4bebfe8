// SPDX-License-Identifier: Apache-2.0
// Reconciliation (snow.table.<alias>.deletes=reconcile, docs/semantics.md "Deletes"): the pure
// parts of a sweep, the requests it sends, how one page is compared with the id set, the
// records it produces and the state it keeps between pages (reconciler.h runs it).
//
// A sweep walks the table's sys_ids in order (keyset on sys_id, `sysparm_fields=sys_id`), one
// page at a time, and compares each page with the same range of the id set, the ids snowcar
// emitted and did not delete:
//   - known but not on the instance: a candidate deletion. It is read once more by id before
//     it counts (a row that was there a moment ago, or matches the query again, is no
//     deletion), then waits for the row stream's acknowledged sweep to pass the time of that
//     read (the same gate as audit deletes: the DELETE never overtakes the row's last UPSERT);
//   - on the instance but never emitted (a restored row, a row that was hidden): read and
//     emitted as an UPSERT, unless it is newer than the row stream's acknowledged sweep (the
//     row stream emits those itself).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source {

// The header a DELETE found by reconciliation carries (audit deletes do not).
inline constexpr const char* kDeleteFoundByHeader = "snow.source.delete.found.by";
inline constexpr std::string_view kFoundByReconciliation = "reconciliation";

// What a table's reconciliation remembers (in the state store and the changelog snapshot).
struct SweepState {
  bool seeded = false;        // a first sweep took the instance's ids as the baseline
  bool in_sweep = false;      // a sweep is under way: resume after `after`
  std::string after;          // the last sys_id compared ("" = from the start)
  int64_t started_at_ms = 0;  // wall clock when the current (or last) sweep began
  // The current sweep so far.
  uint64_t compared = 0;
  uint64_t deleted = 0;
  uint64_t emitted = 0;
  // The last finished sweep.
  int64_t last_started_at_ms = 0;
  int64_t last_duration_ms = 0;
  uint64_t last_compared = 0;
  uint64_t last_deleted = 0;
  uint64_t last_emitted = 0;
  uint64_t sweeps = 0;

  bool operator==(const SweepState&) const = default;
};

// The state for an owner that has no copy of the id set the state was kept against (a
// scale-out handoff whose copy could not be read): the next sweep starts from the beginning
// and takes the instance's ids as its baseline, as a first sweep does. Without it every row
// the set lacks would look never emitted and be emitted again. The counters stay.
SweepState RestartAsBaseline(SweepState state);

std::string EncodeSweepState(const SweepState& state);
// kDataLoss naming what is wrong.
Result<SweepState> DecodeSweepState(std::string_view text);

// One page of the sweep: up to `limit` sys_ids after `after`, in sys_id order, only the id.
std::string SweepPageTarget(const TableSettings& table, std::string_view after, int limit);
// The rows with these ids that the table's query selects: `fields_only_id` reads just the id
// (the confirmation of a candidate deletion), else the table's own fields and display settings.
std::string RowsByIdTarget(const TableSettings& table, const std::vector<std::string>& ids,
                           bool fields_only_id);
// How many ids one RowsByIdTarget names at most (the URL stays far below 8 KiB).
inline constexpr size_t kIdsPerRead = 100;

struct PageDiff {
  std::vector<std::string> gone;     // known, not on the instance
  std::vector<std::string> unknown;  // on the instance, not known
};
// Both inputs ascending; `instance` is one page, `known` the id set's ids of the same range.
PageDiff ComparePage(const std::vector<std::string>& instance,
                     const std::vector<std::string>& known);

// The greatest 32-hex id below `id` ("" below all zeros), so that the id set's range
// (IdBefore(id), id] holds `id` alone when the set has it.
std::string IdBefore(std::string id);

// Whether a never-emitted row the sweep read is the row stream's to emit rather than the
// sweep's: its timestamp `ts` is past what the row stream's acknowledged sweeps cover
// (`rows_hi`, their HI; RowWatermark::kNone before the first one, when every row is).
bool LeftToRowStream(int64_t ts, int64_t rows_hi);

// A row version, as the source's dedup index orders them: by timestamp, then mod count.
struct RowVersion {
  int64_t ts = 0;
  uint32_t mod_count = 0;
  bool operator<(const RowVersion& o) const {
    return ts != o.ts ? ts < o.ts : mod_count < o.mod_count;
  }
};

// The DELETE record of a row found gone (and its tombstone with snow.source.emit.tombstones).
// `found_at_ms`: the instance's clock when the confirmation read saw it gone.
std::vector<kafka::OutRecord> ReconciledDeleteRecords(const TableSettings& table,
                                                      const SourceSettings& source,
                                                      const std::string& sys_id,
                                                      int64_t found_at_ms, int64_t extracted_at_ms);

}  // namespace snowcar::source
