// SPDX-License-Identifier: Apache-2.0
// StateStoreImpl: the RocksDB-backed StateStore (see include/snowcar/state/state_store.h).
//
// Thread safety: RocksDB's DB is safe for concurrent use and this class keeps no mutable
// state of its own after Open (apart from an atomic error count and the origin family's
// index, under its own mutex), so every method may run on any thread. Commits for different
// tables proceed in parallel; RocksDB groups concurrent WAL writes.
#pragma once

#include <rocksdb/db.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "snowcar/state/state_store.h"
#include "state/dir_lock.h"
#include "state/origin_index.h"

namespace snowcar::state {

class DedupWindowImpl;

class StateStoreImpl final : public StateStore {
 public:
  static Result<std::unique_ptr<StateStore>> Open(const StateStoreOptions& options);
  // Flushes memtables (so the next start reads SST files instead of replaying the WAL), then
  // closes RocksDB, then releases the dir lock.
  ~StateStoreImpl() override;

  const std::string& dir() const override { return dir_; }

  Result<std::optional<Cursor>> LoadCursor(const CursorIdentity& identity) override;
  Result<std::vector<StoredCursor>> ListCursors() override;
  Result<std::vector<StoredCursor>> CursorsForTable(std::string_view table) override;
  Status ResetTable(std::string_view table) override;

  Result<std::unique_ptr<DedupWindow>> LoadDedupWindow(const CursorIdentity& identity,
                                                       const DedupPolicy& policy) override;
  Result<std::vector<DedupKey>> DedupEntriesFor(std::string_view table,
                                                std::string_view sys_id) override;
  Result<uint64_t> DedupCount(std::string_view table) override;
  Result<std::vector<DedupKey>> DedupEntries(const CursorIdentity& identity) override;
  Status Commit(const CursorIdentity& identity, const Cursor& cursor, DedupWindow& window) override;
  Status ReplaceTable(const CursorIdentity& identity, const Cursor& cursor,
                      const std::vector<DedupKey>& entries, const DedupPolicy& policy) override;

  Result<std::optional<BackfillProgress>> LoadBackfill(const CursorIdentity& identity) override;
  Status CommitBackfill(const CursorIdentity& identity, const Cursor& cursor, DedupWindow& window,
                        const std::optional<BackfillProgress>& progress) override;
  bool KeepsBackfillProgress() const override { return true; }

  Result<std::optional<std::string>> GetCorrelation(std::string_view table, std::string_view field,
                                                    std::string_view value) override;
  Status PutCorrelation(std::string_view table, std::string_view field, std::string_view value,
                        std::string_view sys_id) override;
  Status EraseCorrelation(std::string_view table, std::string_view field,
                          std::string_view value) override;

  Result<std::optional<std::string>> GetRegistryEntry(std::string_view key) override;
  Status PutRegistryEntry(std::string_view key, std::string_view value) override;
  // state/table_types_store.cpp
  Result<std::optional<std::string>> LoadTableTypes(std::string_view instance,
                                                    std::string_view table) override;
  Status StoreTableTypes(std::string_view instance, std::string_view table,
                         std::string_view encoded) override;
  Status RecordOrigin(const OriginKey& key, const Origin& origin,
                      const OriginPolicy& policy) override;
  Result<std::optional<Origin>> FindOrigin(std::string_view instance, std::string_view table,
                                           std::string_view sys_id, uint32_t mod_count) override;
  void SetOriginWindow(int64_t window_seconds, const Clock* clock) override;
  Result<std::vector<StoredOrigin>> OriginsFor(std::string_view table,
                                               std::string_view sys_id) override;
  Result<uint64_t> OriginCount() override;
  // Id sets (state_store_idset.cpp).
  Status UpdateIdSet(std::string_view instance, std::string_view table,
                     const std::vector<std::string>& add,
                     const std::vector<std::string>& remove) override;
  Result<std::vector<std::string>> IdSetRange(std::string_view instance, std::string_view table,
                                              std::string_view after, std::string_view up_to,
                                              size_t limit) override;
  Result<uint64_t> IdSetCount(std::string_view instance, std::string_view table) override;
  Status ClearIdSet(std::string_view instance, std::string_view table) override;
  Result<std::optional<std::string>> GetIdSetManifest(std::string_view instance,
                                                      std::string_view table) override;
  Status PutIdSetManifest(std::string_view instance, std::string_view table,
                          std::string_view value) override;
  Result<std::optional<std::string>> GetSweepState(std::string_view instance,
                                                   std::string_view table) override;
  Status PutSweepState(std::string_view instance, std::string_view table,
                       std::string_view value) override;

  uint32_t schema_version() const override { return schema_version_; }
  std::vector<PropertySample> NumericProperties() const override;
  uint64_t WriteErrors() const override { return write_errors_.load(std::memory_order_relaxed); }

 private:
  StateStoreImpl() = default;
  Status OpenDatabase(bool fresh);
  // Creates the idset family in a dir written before it existed (state_store_idset.cpp): an
  // added family needs no schema version, and an older snowcar opens the dir unchanged.
  Status EnsureIdSetFamily();
  // The sweep state and the manifest: one value each per (instance, table), by `tag`.
  Result<std::optional<std::string>> GetIdSetValue(std::string_view instance,
                                                   std::string_view table, char tag,
                                                   std::string_view what);
  Status PutIdSetValue(std::string_view instance, std::string_view table, char tag,
                       std::string_view value, std::string_view what);
  Status CheckSchema(bool fresh);
  // Every stored cursor whose key starts with `prefix` ("" = all), decoded.
  Result<std::vector<StoredCursor>> ScanCursors(std::string_view prefix);
  // Version 1 -> 2: moves each table's dedup entries under the instance of its newest cursor.
  Status MigrateFromVersion1();
  // Version 2 -> 3: packs each table's dedup entries (a key each) into blocks.
  Status MigrateFromVersion2();
  // Calls fn(ts, sys_id, mod) for each committed dedup entry of (instance, table), block by
  // block in key order (the window's order); ScanDedupBlocks also calls on_block(seq) first
  // for each block.
  template <typename Fn>
  Status ScanDedup(std::string_view instance, std::string_view table, Fn&& fn);
  template <typename BlockFn, typename Fn>
  Status ScanDedupBlocks(std::string_view instance, std::string_view table, BlockFn&& on_block,
                         Fn&& fn);
  // The same over every instance the alias has a cursor for.
  template <typename Fn>
  Status ScanDedupOfAlias(std::string_view table, Fn&& fn);
  // Adds a commit of `cursor` and `w`'s pending entries and pruning to `batch`; returns the
  // bound the commit prunes below (cursor.ts - overlap, or INT64_MIN when pruning an
  // out-of-order window waits), for OnCommitted.
  Result<int64_t> AddCommit(const CursorIdentity& identity, const Cursor& cursor,
                            DedupWindowImpl& w, rocksdb::WriteBatch& batch);
  // Adds the deletion of every cursor and dedup entry of the alias to `batch`.
  Status AddTableDeletion(std::string_view table, rocksdb::WriteBatch& batch);
  Status Write(rocksdb::WriteBatch* batch, std::string_view what);
  // Reads the origin family's time index into origins_ (state_store_origin.cpp).
  Status LoadOrigins();
  // A dir made before the origin family existed lacks it: adds it to `families` (the open
  // then creates it). True when it was missing.
  static bool AddMissingOriginFamily(std::vector<std::string>& families);

  std::string dir_;
  bool sync_writes_ = false;
  std::atomic<uint64_t> write_errors_{0};  // writes refused (reserve) or failed (RocksDB)
  uint32_t schema_version_ = 0;
  std::unique_ptr<DirLock> lock_;  // declared first: released after the database is closed
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::ColumnFamilyHandle* cursor_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* dedup_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* correlation_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* meta_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* origin_cf_ = nullptr;
  std::unique_ptr<origin::Memory> origins_ = std::make_unique<origin::Memory>();
  rocksdb::ColumnFamilyHandle* idset_cf_ = nullptr;
  // ThreadSanitizer builds only (state_store_impl.cpp, __tsan_default_suppressions): reads and
  // writes take turns, so TSan sees the ordering RocksDB's uninstrumented atomics provide.
  // Elsewhere the turn is an empty object and costs nothing.
#if defined(__SANITIZE_THREAD__)
  std::unique_lock<std::recursive_mutex> TsanTurn() {
    return std::unique_lock<std::recursive_mutex>(tsan_mu_);
  }
  std::recursive_mutex tsan_mu_;
#else
  struct NoTurn {};
  static NoTurn TsanTurn() { return {}; }
#endif
};

}  // namespace snowcar::state
