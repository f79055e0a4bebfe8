// SPDX-License-Identifier: Apache-2.0
#include "state/state_store_impl.h"

#include <rocksdb/cache.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "state/dedup_window_impl.h"
#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_dir.h"

#if defined(__SANITIZE_THREAD__)
// RocksDB synchronises its threads partly with its own atomics: memtable readers run
// lock-free beside writers, and the write group hands one thread's batch to another. The
// Debian library is not built with ThreadSanitizer, so TSan cannot see that and reports races
// inside RocksDB. Reports with a RocksDB frame are suppressed here (races in snowcar's own
// code are still reported). Two hand-overs show no RocksDB frame at all: a batch passed from
// one writer to the group leader, and a value written into the memtable by one thread and
// decoded by snowcar on another. So in TSan builds writes and reads take turns (TsanTurn in
// state_store_impl.h). This lives here because the linker only takes it along from an object
// file that is linked anyway.
extern "C" const char* __tsan_default_suppressions() { return "race:librocksdb.so\n"; }
#endif

namespace snowcar::state {
namespace {

constexpr const char* kOurFamilies[] = {codec::kCursorCf, codec::kDedupCf, codec::kCorrelationCf,
                                        codec::kMetaCf, codec::kOriginCf};

rocksdb::DBOptions MakeDbOptions(bool fresh) {
  rocksdb::DBOptions o;
  o.create_if_missing = fresh;
  o.create_missing_column_families = fresh;
  o.paranoid_checks = true;  // a damaged file fails Open instead of being read around
  o.max_background_jobs = 2;
  o.keep_log_file_num = 3;
  o.max_log_file_size = 1 << 20;
  o.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  // A rarely written family (correlation) would otherwise pin old WAL files until the total
  // reached 4x the memtables; a smaller cap bounds the WAL replayed after a kill -9, and so the
  // time from start to ready.
  o.max_total_wal_size = 16 << 20;
  // The vector memtable takes one writer at a time; RocksDB still groups concurrent commits
  // into one WAL write.
  o.allow_concurrent_memtable_write = false;
  return o;
}

// Small memtables: the state is small and RSS matters more than write amplification here.
rocksdb::ColumnFamilyOptions MakeCfOptions(const std::string& name,
                                           const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions o;
  // The dedup family takes 29 bytes a row in blocks (schema 3; a key of its own per row took
  // about 80 before): 2 MiB holds a full default window of 50 000 entries, and every byte of
  // a memtable is resident until it is flushed.
  o.write_buffer_size = name == codec::kDedupCf ? (2 << 20) : (1 << 20);
  o.max_write_buffer_number = 2;
  if (name == codec::kDedupCf) {
    // The dedup family is written in bulk and only ever read by full scans (warm-up, the
    // socket API), never by point lookups: an append-only vector memtable, sorted once when
    // it is flushed or scanned, costs a fraction of a skip-list insert per key (with a key per
    // entry, schema 2, the commit benchmark went from 0.64 M to 1.67 M rows/s with it).
    o.memtable_factory.reset(new rocksdb::VectorRepFactory());
    // Its values are packed sys_ids (random bytes), which Snappy cannot shrink: compressing
    // them only cost the flush thread CPU.
    o.compression = rocksdb::kNoCompression;
  }
  rocksdb::BlockBasedTableOptions t;
  t.block_cache = cache;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

// Damage is never repaired silently: say what the operator's options are.
Status WithRepairHint(Status s) {
  if (s.code() != StatusCode::kDataLoss) return s;
  return Status(s.code(), s.message() +
                              ". The state database is damaged; restore the dir from a backup, "
                              "or move it away to start over (sources then resume from their "
                              "configured start and re-emit what they find)");
}

// Opens the database read-only (which never deletes or writes a file), hands it to `look`
// and closes it again. Both start-up checks below use it.
Status WithReadOnlyDb(
    const std::string& dir, const std::vector<std::string>& families,
    const std::function<void(rocksdb::DB&, const std::vector<rocksdb::ColumnFamilyHandle*>&)>&
        look) {
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.reserve(families.size());
  for (const auto& name : families) descriptors.emplace_back(name, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::DBOptions o;
  o.paranoid_checks = true;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(o, dir, descriptors, &handles, &raw);
  if (!s.ok()) return WithRepairHint(FromRocks(s, dir, "opening the database"));
  look(*raw, handles);
  for (auto* h : handles) raw->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  delete raw;
  return Status::Ok();
}

// RocksDB makes a new database with its default family first and adds the others one MANIFEST
// edit at a time, so a kill -9 during the first start can leave a database with some of our
// families (or default alone) and nothing in any of them. That is a create to finish, not a
// foreign database: every family has one of our names and holds no key.
Result<bool> IsInterruptedCreate(const std::string& dir, const std::vector<std::string>& families) {
  for (const auto& name : families) {
    const bool ours =
        name == rocksdb::kDefaultColumnFamilyName ||
        std::find(std::begin(kOurFamilies), std::end(kOurFamilies), name) != std::end(kOurFamilies);
    if (!ours) return false;
  }
  bool empty = true;
  SNOWCAR_RETURN_IF_ERROR(WithReadOnlyDb(dir, families, [&](rocksdb::DB& db, const auto& handles) {
    for (auto* h : handles) {
      std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions(), h));
      it->SeekToFirst();
      if (it->Valid() || !it->status().ok()) empty = false;
    }
  }));
  return empty;
}

// Opening the database writes a new MANIFEST (RocksDB reserves 4 MiB for it up front), an
// OPTIONS file and a new WAL. On a full filesystem the Debian librocksdb (built with
// assertions) aborts inside Open instead of returning an error, so the space is checked first
// and a clear error names the dir. A running store keeps the same reserve (Write): RocksDB
// never meets the full disk, and its memtable flushes still find room.
constexpr uint64_t kMinFreeBytes = uint64_t{8} << 20;

// Bytes free on `dir`'s filesystem for an unprivileged writer; nullopt when it cannot be read
// (then the write goes ahead and RocksDB's own error, if any, is the answer).
std::optional<uint64_t> FreeBytes(const std::string& dir) {
  std::error_code ec;
  const std::filesystem::space_info space = std::filesystem::space(dir, ec);
  if (ec) return std::nullopt;
  return space.available;
}

Status CheckFreeSpace(const std::string& dir) {
  const std::optional<uint64_t> available = FreeBytes(dir);
  if (!available || *available >= kMinFreeBytes) return Status::Ok();
  return Status::ResourceExhausted(
      "state dir " + dir + ": only " + std::to_string(*available >> 10) +
      " KiB free on its filesystem; opening the state database needs at least " +
      std::to_string(kMinFreeBytes >> 20) +
      " MiB. Free some space or give state.dir a bigger "
      "volume (nothing was changed)");
}

// A MANIFEST that lost its tail (truncated, or cut at a damaged record) reads as an older
// version of the database, and an open in write mode then deletes every newer file as
// obsolete: the state would be reset without a word. A read-only open deletes nothing, so it
// looks first: a store that recovers without its schema version while table files (.sst) sit
// in the dir has lost its catalogue. Only paid when table files exist (a store that never
// flushed has nothing to lose this way).
Status CheckCatalogueIntact(const std::string& dir, const std::vector<std::string>& families) {
  size_t tables = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    tables += entry.path().extension() == ".sst" ? 1 : 0;
  }
  if (tables == 0) return Status::Ok();
  bool has_version = false;
  SNOWCAR_RETURN_IF_ERROR(WithReadOnlyDb(dir, families, [&](rocksdb::DB& db, const auto& handles) {
    for (auto* h : handles) {
      if (h->GetName() != codec::kMetaCf) continue;
      std::string value;
      has_version =
          db.Get(rocksdb::ReadOptions(), h, std::string(codec::kSchemaVersionKey), &value).ok();
    }
  }));
  if (has_version) return Status::Ok();
  return WithRepairHint(Status::DataLoss(
      "state dir " + dir + ": the database opens without its schema version although " +
      std::to_string(tables) +
      " table files (.sst) are in the dir, so its MANIFEST is truncated or damaged; "
      "refusing to start rather than silently starting over"));
}

}  // namespace

std::string_view PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kBackfill:
      return "backfill";
    case Phase::kStream:
      return "stream";
  }
  return "unknown";
}

Result<std::unique_ptr<StateStore>> StateStore::Open(const StateStoreOptions& options) {
  return StateStoreImpl::Open(options);
}

Result<std::unique_ptr<StateStore>> StateStoreImpl::Open(const StateStoreOptions& options) {
  SNOWCAR_RETURN_IF_ERROR(
      EnsureStateDir(options.dir, options.create_if_missing, options.owner_only));
  // Before the first file is created (our lock file, then RocksDB's). RocksDB creates files
  // for as long as the store is open (flushes, compactions, new logs) with mode 0644 minus
  // the umask, and this version offers no working per-database mode, so the umask is the
  // one setting that covers them all. It stays tightened for the rest of the process.
  if (options.owner_only) RestrictUmaskToOwner();
  std::unique_ptr<StateStoreImpl> store(new StateStoreImpl());
  store->dir_ = options.dir;
  store->sync_writes_ = options.sync_writes;
  // The lock comes first: nothing below may touch files another process is using.
  SNOWCAR_ASSIGN_OR_RETURN(store->lock_, DirLock::Acquire(options.dir));
  SNOWCAR_ASSIGN_OR_RETURN(DirContents contents, InspectStateDir(options.dir));
  const bool fresh = contents == DirContents::kEmpty;
  if (fresh && !options.create_if_missing) {
    return Status::NotFound("state dir " + options.dir +
                            " holds no state database (creation is turned off)");
  }
  SNOWCAR_RETURN_IF_ERROR(CheckFreeSpace(options.dir));
  SNOWCAR_RETURN_IF_ERROR(store->OpenDatabase(fresh));
  SNOWCAR_RETURN_IF_ERROR(store->CheckSchema(fresh));
  SNOWCAR_RETURN_IF_ERROR(store->LoadOrigins());
  // The open itself reserved space ahead (the WAL about 1.1 times the largest memtable, the
  // MANIFEST 4 MiB): a store that now sits below the write reserve would refuse every commit,
  // so it does not start.
  if (const std::optional<uint64_t> left = FreeBytes(options.dir); left && *left < kMinFreeBytes) {
    return Status::ResourceExhausted(
        "state dir " + options.dir + ": only " + std::to_string(*left >> 10) +
        " KiB free on its filesystem after opening the state database (RocksDB reserves space "
        "for its log and manifest ahead); writes need " +
        std::to_string(kMinFreeBytes >> 20) +
        " MiB more. Free some space or give state.dir a bigger volume (at least 32 MiB)");
  }
  SNOWCAR_LOG(kInfo, "state.opened",
              {{"dir", options.dir},
               {"schema_version", store->schema_version_},
               {"created", fresh},
               {"sync_writes", options.sync_writes}});
  return std::unique_ptr<StateStore>(std::move(store));
}

Status StateStoreImpl::OpenDatabase(bool fresh) {
  std::vector<std::string> families;
  if (fresh) {
    families = {rocksdb::kDefaultColumnFamilyName};
    families.insert(families.end(), std::begin(kOurFamilies), std::end(kOurFamilies));
  } else {
    rocksdb::Status s = rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir_, &families);
    if (!s.ok()) {
      return WithRepairHint(FromRocks(s, dir_, "reading the database's column families"));
    }
    if (std::find(families.begin(), families.end(), codec::kMetaCf) == families.end()) {
      // A damaged MANIFEST can also read as "default only": the read-only open of the check
      // tells the two apart, so corruption is reported as corruption.
      SNOWCAR_ASSIGN_OR_RETURN(const bool interrupted, IsInterruptedCreate(dir_, families));
      if (interrupted) {
        SNOWCAR_LOG(kWarn, "state.create_resumed",
                    {{"dir", dir_},
                     {"reason",
                      "an empty database from a first start that was stopped while "
                      "creating it"}});
        return OpenDatabase(/*fresh=*/true);
      }
      std::string list;
      for (const auto& f : families) list += (list.empty() ? "" : ", ") + f;
      return Status::FailedPrecondition(
          "state dir " + dir_ +
          " holds a RocksDB database that is not a snowcar state store "
          "of any known layout (it has no schema version; column families: " +
          list + "); point state.dir at another dir or remove this one to start over");
    }
    SNOWCAR_RETURN_IF_ERROR(CheckCatalogueIntact(dir_, families));
  }
  const bool add_origin = !fresh && AddMissingOriginFamily(families);
  auto cache = rocksdb::NewLRUCache(8 << 20);
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.reserve(families.size());
  for (const auto& name : families) descriptors.emplace_back(name, MakeCfOptions(name, cache));
  rocksdb::DB* raw = nullptr;
  rocksdb::DBOptions db_options = MakeDbOptions(fresh);
  db_options.create_missing_column_families |= add_origin;
  rocksdb::Status s = rocksdb::DB::Open(db_options, dir_, descriptors, &handles_, &raw);
  if (!s.ok()) return WithRepairHint(FromRocks(s, dir_, "opening the database"));
  db_.reset(raw);
  for (auto* h : handles_) {
    if (h->GetName() == codec::kCursorCf) cursor_cf_ = h;
    if (h->GetName() == codec::kDedupCf) dedup_cf_ = h;
    if (h->GetName() == codec::kCorrelationCf) correlation_cf_ = h;
    if (h->GetName() == codec::kMetaCf) meta_cf_ = h;
    if (h->GetName() == codec::kOriginCf) origin_cf_ = h;
  }
  return EnsureIdSetFamily();
}

Status StateStoreImpl::CheckSchema(bool fresh) {
  std::string value;
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), meta_cf_, std::string(codec::kSchemaVersionKey), &value);
  const bool all_families = cursor_cf_ && dedup_cf_ && correlation_cf_ && meta_cf_;
  if (s.IsNotFound()) {
    // Only a create that stopped between making the column families and writing the version
    // may look like this: every family exists and all are empty. Finish it.
    bool empty = all_families;
    for (auto* h : {cursor_cf_, dedup_cf_, correlation_cf_, meta_cf_}) {
      if (!empty) break;
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), h));
      it->SeekToFirst();
      empty = !it->Valid() && it->status().ok();
    }
    if (!fresh && !empty) {
      return Status::FailedPrecondition("state dir " + dir_ +
                                        " holds state without a schema version (an unknown "
                                        "layout); it cannot be used by this snowcar");
    }
    rocksdb::WriteOptions wo;
    wo.sync = true;
    s = db_->Put(wo, meta_cf_, std::string(codec::kSchemaVersionKey),
                 codec::EncodeSchemaVersion(kSchemaVersion));
    if (!s.ok()) return FromRocks(s, dir_, "writing the schema version");
    schema_version_ = kSchemaVersion;
    return Status::Ok();
  }
  if (!s.ok()) return FromRocks(s, dir_, "reading the schema version");
  auto version = codec::DecodeSchemaVersion(value);
  if (!version) {
    return Status::DataLoss("state dir " + dir_ + ": the stored schema version is unreadable (" +
                            std::to_string(value.size()) + " bytes instead of 4)");
  }
  schema_version_ = *version;
  if (*version > kSchemaVersion) {
    return Status::FailedPrecondition(
        "state dir " + dir_ + " was written by a newer snowcar (schema version " +
        std::to_string(*version) + "); this snowcar understands schema version " +
        std::to_string(kSchemaVersion) + " only. Run the newer snowcar, or reset the state dir");
  }
  if (!all_families) {
    return Status::DataLoss("state dir " + dir_ + " has schema version " +
                            std::to_string(*version) + " but lacks some of its column families");
  }
  // Each migration writes its version with its changes in one batch, so a crash between two
  // of them leaves a dir the next open carries on from.
  if (*version == 1) {
    SNOWCAR_RETURN_IF_ERROR(MigrateFromVersion1());
    *version = 2;
  }
  if (*version == 2) {
    SNOWCAR_RETURN_IF_ERROR(MigrateFromVersion2());
    *version = 3;
    schema_version_ = kSchemaVersion;
  } else if (*version < kSchemaVersion) {
    return Status::FailedPrecondition("state dir " + dir_ + " has schema version " +
                                      std::to_string(*version) + ", older than version " +
                                      std::to_string(kSchemaVersion) +
                                      " and there is no migration for it");
  }
  return Status::Ok();
}

StateStoreImpl::~StateStoreImpl() {
  if (db_) {
    rocksdb::FlushOptions fo;
    fo.wait = true;
    std::vector<rocksdb::ColumnFamilyHandle*> ours;
    for (auto* h : {cursor_cf_, dedup_cf_, correlation_cf_, meta_cf_, origin_cf_}) {
      if (h) ours.push_back(h);
    }
    // Below the reserve the flush is skipped (RocksDB is kept away from a full disk); the WAL
    // holds every commit and is replayed on the next start.
    const std::optional<uint64_t> available = FreeBytes(dir_);
    rocksdb::Status s =
        available && *available < kMinFreeBytes
            ? rocksdb::Status::NoSpace("flush skipped: below the free-space reserve")
            : db_->Flush(fo, ours);
    if (!s.ok()) {
      // Nothing is lost: the WAL still holds every commit and is replayed on the next start.
      SNOWCAR_LOG(kWarn, "state.flush_failed", {{"dir", dir_}, {"error", s.ToString()}});
    }
    for (auto* h : handles_) db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
}

Status StateStoreImpl::Write(rocksdb::WriteBatch* batch, std::string_view what) {
  [[maybe_unused]] const auto turn = TsanTurn();
  // One statvfs per write batch (about a microsecond; a commit carries up to a page of rows).
  if (const std::optional<uint64_t> available = FreeBytes(dir_);
      available && *available < kMinFreeBytes) {
    write_errors_.fetch_add(1, std::memory_order_relaxed);
    return Status::ResourceExhausted(
        "state dir " + dir_ + ": " + std::string(what) + " was refused: only " +
        std::to_string(*available >> 10) + " KiB free on its filesystem, below the " +
        std::to_string(kMinFreeBytes >> 20) +
        " MiB kept in reserve. Nothing was written; it is retried once space is freed");
  }
  rocksdb::WriteOptions wo;
  wo.sync = sync_writes_;
  Status written = FromRocks(db_->Write(wo, batch), dir_, what);
  if (!written.ok()) write_errors_.fetch_add(1, std::memory_order_relaxed);
  return written;
}

std::vector<StateStore::PropertySample> StateStoreImpl::NumericProperties() const {
  // Cheap, in-memory estimates RocksDB keeps anyway; no scan. What an operator needs to size
  // state.dir's volume and spot a growing dedup index or memtable.
  static const char* const kProperties[] = {
      "rocksdb.estimate-num-keys",
      "rocksdb.total-sst-files-size",
      "rocksdb.cur-size-all-mem-tables",
      "rocksdb.estimate-live-data-size",
  };
  std::vector<PropertySample> out;
  if (!db_) return out;
  for (rocksdb::ColumnFamilyHandle* cf : handles_) {
    for (const char* property : kProperties) {
      uint64_t value = 0;
      if (db_->GetIntProperty(cf, property, &value)) {
        out.push_back({cf->GetName(), property, value});
      }
    }
  }
  return out;
}

}  // namespace snowcar::state
