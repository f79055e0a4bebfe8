// SPDX-License-Identifier: Apache-2.0
// The state store: everything snowcar must remember across restarts, in one RocksDB database
// under `state.dir`.
//
//   cursors      (instance, table, query fingerprint, timestamp field) -> (ts, sys_id, phase)
//   dedup        (instance, table, ts, sys_id, sys_mod_count), big-endian so it sorts by time
//   correlation  (table, field, value) -> sys_id   (sink: ambiguous creates)
//   meta         schema version; the Schema Registry id cache under "registry/" keys
//   origin       (instance, table, sys_id, sys_mod_count) -> the command that wrote it
//   idset        (instance, table, sys_id as 16 bytes)  (source: emitted, not deleted; and the
//                reconciliation sweep's position)
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
#include "snowcar/common/time.h"

namespace snowcar::state {

// Bumped when the on-disk layout changes incompatibly. Opening a state dir written with a
// newer version fails with a message naming both versions.
// Version 2 keyed the dedup entries by (instance, table) like the cursors; version 3 stores them
// as one block per commit. An older dir is migrated when it is opened (docs/state-store.md,
// "Schema versions").
inline constexpr uint32_t kSchemaVersion = 3;

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

// Built from the source's settings (SourceSettings::dedup_policy); the defaults here are the
// option table's, which a test checks.
struct DedupPolicy {
  int64_t overlap_seconds = 2;    // snow.source.overlap.seconds
  size_t window_records = 50000;  // snow.source.dedup.window.records
  bool operator==(const DedupPolicy&) const = default;
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

// ---- origins: the row versions the sink wrote ------------------------------------------------
// One row version, exactly: what a source record is matched on. `table` is the ServiceNow
// table name (not a source alias), `instance` the host of snow.url as in CursorIdentity.
struct OriginKey {
  std::string instance;
  std::string table;
  std::string sys_id;
  uint32_t mod_count = 0;

  bool operator==(const OriginKey&) const = default;
};

// Where a version the sink wrote came from: the command record, and what the answer said.
struct Origin {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::string correlation;     // the command's correlation value; empty: none
  std::string request_id;      // the command's snow.request.id header; empty: none
  std::string operation;       // "CREATE", "PATCH" or "PUT", as sent
  std::string sys_updated_on;  // as the instance answered; empty when it did not say
  int64_t written_at_ms = 0;   // wall clock when the sink recorded it

  bool operator==(const Origin&) const = default;
};

struct StoredOrigin {
  OriginKey key;
  Origin origin;
};

// Bounds of the origin family, like the dedup window's: entries older than window_seconds
// and the oldest beyond window_records are deleted by the next RecordOrigin.
struct OriginPolicy {
  int64_t window_seconds = 86400;  // snow.sink.origin.window.seconds
  size_t window_records = 50000;   // snow.sink.origin.window.records; 0 records nothing
  bool operator==(const OriginPolicy&) const = default;
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

  // ---- id sets (source reconciliation, docs/state-store.md "Id sets") ----------------------
  // Per (instance, table alias): the sys_ids the source emitted and has not deleted since.
  // Only 32-hex ids are kept (16 bytes each on disk); others are refused with
  // kInvalidArgument. Adds and removes are applied in one WriteBatch, removes last.
  virtual Status UpdateIdSet(std::string_view instance, std::string_view table,
                             const std::vector<std::string>& add,
                             const std::vector<std::string>& remove) {
    (void)instance, (void)table, (void)add, (void)remove;
    return Status::FailedPrecondition("this state store keeps no id sets");
  }
  // The set's ids in (after, up_to], ascending, at most `limit`; `up_to` empty: to the end.
  virtual Result<std::vector<std::string>> IdSetRange(std::string_view instance,
                                                      std::string_view table,
                                                      std::string_view after,
                                                      std::string_view up_to, size_t limit) {
    (void)instance, (void)table, (void)after, (void)up_to, (void)limit;
    return Status::FailedPrecondition("this state store keeps no id sets");
  }
  // Empties the set of (instance, table) in one write; the sweep state stays. A scale-out
  // restore clears the set before it writes the one the changelog carried.
  virtual Status ClearIdSet(std::string_view instance, std::string_view table) {
    (void)instance, (void)table;
    return Status::FailedPrecondition("this state store keeps no id sets");
  }
  // Counts the set by scanning it (a 10-million-row set takes seconds): tests, benchmarks.
  virtual Result<uint64_t> IdSetCount(std::string_view instance, std::string_view table) {
    (void)instance, (void)table;
    return Status::FailedPrecondition("this state store keeps no id sets");
  }
  // The reconciliation sweep's state: an opaque value the source encodes. nullopt: none yet.
  virtual Result<std::optional<std::string>> GetSweepState(std::string_view instance,
                                                           std::string_view table) {
    (void)instance, (void)table;
    return Status::FailedPrecondition("this state store keeps no sweep state");
  }
  virtual Status PutSweepState(std::string_view instance, std::string_view table,
                               std::string_view value) {
    (void)instance, (void)table, (void)value;
    return Status::FailedPrecondition("this state store keeps no sweep state");
  }
  // Which copy of the set the changelog holds (the source's IdSetManifest, encoded): the one
  // this store last published or restored. nullopt: none.
  virtual Result<std::optional<std::string>> GetIdSetManifest(std::string_view instance,
                                                              std::string_view table) {
    (void)instance, (void)table;
    return Status::FailedPrecondition("this state store keeps no id sets");
  }
  virtual Status PutIdSetManifest(std::string_view instance, std::string_view table,
                                  std::string_view value) {
    (void)instance, (void)table, (void)value;
    return Status::FailedPrecondition("this state store keeps no id sets");
  }
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

  // ---- Schema Registry id cache (state/registry_cache.cpp) ------------------------------------
  // Opaque entries kept for the registry client (include/snowcar/schema_registry/client.h), so
  // a restart needs no registry round trip before the first record. Key and value are the
  // client's; they live in the meta family under the "registry/" prefix, so no new column
  // family (and no schema version change) is needed. Stores without them (fakes) remember
  // nothing, which only costs a round trip.
  virtual Result<std::optional<std::string>> GetRegistryEntry(std::string_view /*key*/) {
    return std::optional<std::string>{};
  }
  virtual Status PutRegistryEntry(std::string_view /*key*/, std::string_view /*value*/) {
    return Status::Ok();
  }

  // ---- column types of typed source records ---------------------------------------------
  // The column types the source last read from sys_dictionary for (instance, table), as the
  // text it stored (snowcar::source::TableTypes::Encode, which carries its read time), or
  // nullopt. Kept so a restart writes its first typed record without asking the instance.
  // Stores without a place for them (test fakes) keep nothing.
  virtual Result<std::optional<std::string>> LoadTableTypes(std::string_view instance,
                                                            std::string_view table) {
    (void)instance, (void)table;
    return std::optional<std::string>();
  }
  virtual Status StoreTableTypes(std::string_view instance, std::string_view table,
                                 std::string_view encoded) {
    (void)instance, (void)table, (void)encoded;
    return Status::Ok();
  }
  // ---- origins (state_store_origin.cpp) -----------------------------------------------------
  // Written by the sink after each successful write, read by the source for every row version
  // it emits. Stores without the family record nothing and find nothing.
  //
  // Records (or overwrites) one version's origin and prunes the family to `policy` in the
  // same WriteBatch. Durable like a commit (WAL on) once it returns OK.
  virtual Status RecordOrigin(const OriginKey& key, const Origin& origin,
                              const OriginPolicy& policy) {
    (void)key, (void)origin, (void)policy;
    return Status::Ok();
  }
  // The origin of exactly this version, or nullopt. The hot path of the source: a version
  // that was never recorded is answered from memory, without reading the disk.
  virtual Result<std::optional<Origin>> FindOrigin(std::string_view instance,
                                                   std::string_view table, std::string_view sys_id,
                                                   uint32_t mod_count) {
    (void)instance, (void)table, (void)sys_id, (void)mod_count;
    return std::optional<Origin>();
  }
  // How long a recorded version stays findable: from this call on, FindOrigin answers nullopt
  // for an entry recorded (Origin::written_at_ms) more than `window_seconds` before `clock`'s
  // now (null: the system clock), although it stays on disk until a RecordOrigin prunes it.
  // The sink sets it from snow.sink.origin.window.seconds when it is made; before any call the
  // age of an entry is not checked. Thread-safe.
  virtual void SetOriginWindow(int64_t window_seconds, const Clock* clock) {
    (void)window_seconds, (void)clock;
  }
  // Every recorded version of one row (any instance), lowest sys_mod_count first. For the
  // socket API.
  virtual Result<std::vector<StoredOrigin>> OriginsFor(std::string_view table,
                                                       std::string_view sys_id) {
    (void)table, (void)sys_id;
    return std::vector<StoredOrigin>();
  }
  // Versions recorded now.
  virtual Result<uint64_t> OriginCount() { return uint64_t{0}; }

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
