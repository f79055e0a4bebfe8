// SPDX-License-Identifier: Apache-2.0
// The state store: everything snowcar must remember across restarts, in one RocksDB database
// under `state.dir`.
//
//   cursors      (instance, table, query fingerprint, timestamp field) -> (ts, sys_id, phase)
//   dedup        (instance, table, ts, sys_id, sys_mod_count), big-endian so it sorts by time
//   correlation  (table, field, value) -> sys_id   (sink: ambiguous creates)
//   meta         schema version
//
// Thread safety: every StateStore method may be called from any thread. A DedupWindow is
// owned by one source poller and used from that poller's strand only.
//
// Durability: writes go through the WAL. A cursor and the dedup entries of the rows it covers
// are written in one WriteBatch (Commit), so no reader, and no process after a crash, can see
// a cursor without its dedup entries.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::state {

// Bumped when the on-disk layout changes incompatibly. Opening a state dir written with a
// newer version fails with a message naming both versions.
// Version 2 keys the dedup entries by (instance, table) like the cursors; a version 1 dir is
// migrated when it is opened (docs/state-store.md, "Schema versions").
inline constexpr uint32_t kSchemaVersion = 2;

// Which configuration a cursor belongs to (reference behaviour, section 2). A stored cursor
// whose identity differs from the configured one is refused, never silently reused.
struct CursorIdentity {
  std::string instance;           // instance host, e.g. "acme.service-now.com"
  std::string table;              // the source alias
  std::string query_fingerprint;  // hash of table name, normalised base query, domain flag
  std::string timestamp_field;    // e.g. "sys_updated_on"

  bool operator==(const CursorIdentity&) const = default;
};

enum class Phase : uint8_t { kBackfill = 0, kStream = 1 };
std::string_view PhaseName(Phase phase);

// A source position: every row at or before (ts, sys_id) has been emitted and acknowledged.
// (T, "") sorts before every row of second T.
struct Cursor {
  int64_t ts = 0;  // seconds since the epoch, UTC
  std::string sys_id;
  Phase phase = Phase::kBackfill;

  bool operator==(const Cursor&) const = default;
};

struct StoredCursor {
  CursorIdentity identity;
  Cursor cursor;
  int64_t updated_at_ms = 0;  // wall clock of the commit that wrote it
};

// One emitted row version.
struct DedupKey {
  int64_t ts = 0;  // the row's timestamp field, seconds since the epoch
  std::string sys_id;
  uint32_t mod_count = 0;

  bool operator==(const DedupKey&) const = default;
};

// A parallel backfill's progress (docs/source.md, "Parallel backfill"): the time ranges
// (lo, hi] that concurrent sweeps read, each with the position up to which Kafka acknowledged
// its rows. The table's cursor is the contiguous prefix of these; this record lets a restart
// resume every range where it stood. Committed in the same WriteBatch as the cursor.
struct BackfillRange {
  int64_t lo = 0;   // exclusive, seconds
  int64_t hi = 0;   // inclusive, seconds
  Cursor position;  // every row of the range at or before it is in Kafka ((lo + 1, "") at first)
  bool done = false;
  bool operator==(const BackfillRange&) const = default;
};
struct BackfillProgress {
  std::vector<BackfillRange> ranges;  // ordered, adjacent: ranges[i].hi == ranges[i+1].lo
  bool operator==(const BackfillProgress&) const = default;
};

struct DedupPolicy {
  int64_t overlap_seconds = 2;    // snow.source.overlap.seconds
  size_t window_records = 50000;  // snow.source.dedup.window.records
};

// The in-memory front of one table's durable dedup index, as loaded by
// StateStore::LoadDedupWindow. Lookups and inserts never touch the disk; inserted keys are
// pending until the next StateStore::Commit writes them with the cursor that covers them.
//
// Not thread-safe: owned by one source poller strand.
class DedupWindow {
 public:
  virtual ~DedupWindow() = default;
  virtual const std::string& table() const = 0;
  // True when this exact row version was emitted before (committed or pending).
  virtual bool Contains(const DedupKey& key) const = 0;
  // Records `key` as emitted. Returns false (and changes nothing) when it was already there.
  // Beyond window_records the oldest entry is dropped at once (memory stays bounded); the
  // next Commit deletes it on disk too.
  virtual bool Insert(const DedupKey& key) = 0;
  // The same two calls on a borrowed sys_id: the poller's hot path, which holds the id as a
  // view into the parsed page, need not build a std::string per row. The defaults forward.
  virtual bool Contains(int64_t ts, std::string_view sys_id, uint32_t mod_count) const {
    return Contains(DedupKey{ts, std::string(sys_id), mod_count});
  }
  virtual bool Insert(int64_t ts, std::string_view sys_id, uint32_t mod_count) {
    return Insert(DedupKey{ts, std::string(sys_id), mod_count});
  }
  // Entries held in memory, committed and pending.
  virtual size_t size() const = 0;
  virtual size_t pending() const = 0;
};

struct StateStoreOptions {
  std::string dir;  // state.dir
  bool create_if_missing = true;
  // fsync the WAL on every commit. Off by default: a process crash loses nothing either way;
  // a machine crash may lose the last commits, which re-emits rows, never loses them.
  bool sync_writes = false;
  // state.dir.access=owner: a dir created here gets mode 0700 and every file 0600, by adding
  // 077 to the process umask for the rest of the process (RocksDB creates files as long as
  // the store is open and honours no per-database mode). False: modes follow the umask.
  bool owner_only = true;
};

class StateStore {
 public:
  virtual ~StateStore() = default;

  // Opens (or creates) the store. Fails fast, naming the dir, when another process holds it
  // (and naming that process), when the dir is unwritable, corrupt, or written by a newer
  // schema.
  static Result<std::unique_ptr<StateStore>> Open(const StateStoreOptions& options);

  virtual const std::string& dir() const = 0;

  // ---- cursors -------------------------------------------------------------------------
  // The cursor stored for exactly this identity, or nullopt when there is none. When a cursor
  // exists for the same (instance, table) under another fingerprint or timestamp field, fails
  // with kFailedPrecondition naming both identities and how to reset.
  virtual Result<std::optional<Cursor>> LoadCursor(const CursorIdentity& identity) = 0;
  virtual Result<std::vector<StoredCursor>> ListCursors() = 0;
  // Every cursor stored for one table alias (normally one).
  virtual Result<std::vector<StoredCursor>> CursorsForTable(std::string_view table) = 0;
  // Removes the table's cursors and its dedup entries, for every instance (an explicit reset). Stop
  // the table's poller first: a window loaded before the reset writes its entries back on its next
  // Commit.
  virtual Status ResetTable(std::string_view table) = 0;

  // ---- dedup ---------------------------------------------------------------------------
  // Dedup entries are keyed like the cursor, by (identity.instance, identity.table): the same
  // alias pointed at another instance (a clone) has entries of its own, none at first. The
  // fingerprint and timestamp field play no part (a cursor under another one is refused).
  //
  // Reads the committed entries of (instance, table) into a fresh in-memory window (the
  // restart warm-up).
  virtual Result<std::unique_ptr<DedupWindow>> LoadDedupWindow(const CursorIdentity& identity,
                                                               const DedupPolicy& policy) = 0;
  // Committed entries for one sys_id (all its versions), oldest first, over every instance
  // the alias has a cursor for. For the socket API.
  virtual Result<std::vector<DedupKey>> DedupEntriesFor(std::string_view table,
                                                        std::string_view sys_id) = 0;
  // Committed entries of the alias, over every instance it has a cursor for.
  virtual Result<uint64_t> DedupCount(std::string_view table) = 0;
  // Every committed entry of (instance, table), oldest first: what a state snapshot carries
  // to the table's next owner (docs/scale-out.md). Stores that cannot list answer
  // kFailedPrecondition.
  virtual Result<std::vector<DedupKey>> DedupEntries(const CursorIdentity& identity) {
    (void)identity;
    return Status::FailedPrecondition("this state store cannot list dedup entries");
  }
  // Replaces everything stored for the alias (every cursor and dedup entry, any instance)
  // by `cursor` for `identity` and `entries`, pruned as a Commit would prune them, in ONE
  // WriteBatch: a crash leaves either the old state or the new, never a table with no
  // cursor. A scale-out handoff restores a snapshot this way. No window of the table may be
  // in use. Stores that cannot do it atomically answer kFailedPrecondition.
  virtual Status ReplaceTable(const CursorIdentity& identity, const Cursor& cursor,
                              const std::vector<DedupKey>& entries, const DedupPolicy& policy) {
    (void)identity, (void)cursor, (void)entries, (void)policy;
    return Status::FailedPrecondition("this state store cannot replace a table's state");
  }

  // The one atomic commit: writes `cursor` for `identity`, the window's pending entries, and
  // the window's pruning (entries below cursor.ts - overlap, then the oldest beyond
  // window_records), in one WriteBatch with the WAL on. After it returns OK the window has no
  // pending entries. On failure nothing is written and the pending entries stay pending.
  virtual Status Commit(const CursorIdentity& identity, const Cursor& cursor,
                        DedupWindow& window) = 0;

  // ---- parallel backfill progress (state_store_backfill.cpp) -------------------------------
  // The progress stored beside the cursor of `identity`, or nullopt. Stores without the
  // family answer nullopt and refuse CommitBackfill, which keeps their tables on one sweep.
  virtual Result<std::optional<BackfillProgress>> LoadBackfill(const CursorIdentity& identity) {
    (void)identity;
    return std::optional<BackfillProgress>();
  }
  // Commit (above) plus the progress in the same WriteBatch; nullopt deletes the stored one.
  virtual Status CommitBackfill(const CursorIdentity& identity, const Cursor& cursor,
                                DedupWindow& window,
                                const std::optional<BackfillProgress>& progress) {
    (void)identity, (void)cursor, (void)window, (void)progress;
    return Status::FailedPrecondition("this state store keeps no backfill progress");
  }
  virtual bool KeepsBackfillProgress() const { return false; }

  // ---- sink correlation cache ------------------------------------------------------------
  virtual Result<std::optional<std::string>> GetCorrelation(std::string_view table,
                                                            std::string_view field,
                                                            std::string_view value) = 0;
  virtual Status PutCorrelation(std::string_view table, std::string_view field,
                                std::string_view value, std::string_view sys_id) = 0;
  virtual Status EraseCorrelation(std::string_view table, std::string_view field,
                                  std::string_view value) = 0;

  // ---- diagnostics -------------------------------------------------------------------------
  virtual uint32_t schema_version() const = 0;
  // RocksDB's numeric properties per column family, for /metrics (snowcar_state_* gauges),
  // e.g. {"dedup", "rocksdb.estimate-num-keys", 1234}. Empty for stores without them (fakes).
  struct PropertySample {
    std::string column_family;
    std::string property;
    uint64_t value = 0;
  };
  virtual std::vector<PropertySample> NumericProperties() const { return {}; }
  // Writes refused or failed since the store opened (below the free-space reserve, an I/O
  // error): snowcar_state_write_errors_total. Each one was also returned to its caller.
  virtual uint64_t WriteErrors() const { return 0; }
};

}  // namespace snowcar::state
