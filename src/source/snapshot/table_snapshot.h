// SPDX-License-Identifier: Apache-2.0
// A table's source state as one changelog record: the committed cursor and the dedup entries
// the store kept with it (docs/scale-out.md, "What moves with a table").
//
// Why a full snapshot rather than one record per cursor or dedup change: the store already
// prunes a table's dedup entries to the overlap window behind its cursor, so the whole state
// is small (normally the rows of the last couple of seconds). One self-contained record per
// table means compaction keeps exactly what a new owner needs, the restore reads one value,
// and there is no replay order to get wrong.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source {

inline constexpr int kSnapshotVersion = 1;

// The deletes stream's own cursor and dedup entries (deletes=audit, alias "<alias>.deletes").
struct StreamSnapshot {
  state::CursorIdentity identity;
  state::Cursor cursor;
  std::vector<state::DedupKey> dedup;
  bool operator==(const StreamSnapshot&) const = default;
};

struct TableSnapshot {
  state::CursorIdentity identity;  // identity.table is the alias (the record key)
  state::Cursor cursor;
  std::vector<state::DedupKey> dedup;  // oldest first
  std::string replica;                 // who wrote it (diagnostics only)
  int64_t written_at_ms = 0;
  bool truncated = false;  // the oldest dedup entries were left out to fit the size cap
  // Optional members (older snapshots have neither; readers of older versions ignore them),
  // filled by CaptureDeletesState (table_snapshot_deletes.cpp):
  std::optional<StreamSnapshot> deletes;  // the audit stream's position
  std::optional<std::string> sweep;       // the reconciliation's SweepState, encoded
  // The id set's copy on the changelog (IdSetManifest, encoded; idset_changelog.h).
  std::optional<std::string> idset;

  // Same cursor and dedup entries (what a new owner would restore); ignores who and when.
  bool SameState(const TableSnapshot& other) const {
    return identity == other.identity && cursor == other.cursor && dedup == other.dedup &&
           deletes == other.deletes && sweep == other.sweep && idset == other.idset;
  }
};

// JSON, at most `max_bytes` long: when the entries do not all fit, the oldest are left out
// and `truncated` is set. Leaving an entry out can only re-emit that row version after a
// handoff, never lose one.
std::string EncodeSnapshot(const TableSnapshot& snapshot, size_t max_bytes);
// kDataLoss naming what is wrong for a record that is not a snapshot this version can read.
Result<TableSnapshot> DecodeSnapshot(std::string_view text);

// The table's committed state for `identity`; nullopt when no cursor is stored for it.
Result<std::optional<TableSnapshot>> CaptureSnapshot(state::StateStore& store,
                                                     const state::CursorIdentity& identity);

enum class RestoreOutcome {
  kApplied,           // the local state was replaced by the snapshot
  kLocalNewer,        // the local cursor is past the snapshot's: kept (see .cpp)
  kIdentityMismatch,  // the snapshot was written under another configuration: ignored
};
std::string_view RestoreOutcomeName(RestoreOutcome outcome);

// Makes the snapshot the table's local state (cursor + dedup entries, one atomic
// StateStore::ReplaceTable) unless the
// local cursor for the same identity is already past it. No poller of the table may run.
// table_snapshot_deletes.cpp: adds the deletes stream's cursor and the reconciliation's sweep
// state and id set manifest of `table` to `snapshot` (nothing for deletes=none), and restores
// the first two: the deletes cursor by the rule of ApplySnapshot (a newer local cursor is
// kept), the sweep state as is. The id set itself is read from the changelog by the caller
// (table_ownership_idset.cpp), which also decides what the restored sweep state means.
Status CaptureDeletesState(state::StateStore& store, const SourceSettings& source,
                           const TableSettings& table, TableSnapshot& snapshot);
Status ApplyDeletesState(state::StateStore& store, const SourceSettings& source,
                         const TableSettings& table, const TableSnapshot& snapshot,
                         const state::DedupPolicy& policy);

Result<RestoreOutcome> ApplySnapshot(state::StateStore& store, const TableSnapshot& snapshot,
                                     const state::CursorIdentity& configured,
                                     const state::DedupPolicy& policy);

}  // namespace snowcar::source
