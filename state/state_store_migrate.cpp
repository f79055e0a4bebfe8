// SPDX-License-Identifier: Apache-2.0
// Migrations between state schema versions, run by Open (CheckSchema) one after the other.
// Each writes its changes and its version in one synced WriteBatch: a crash during one leaves
// the older version untouched, and the next open migrates again.
#include <rocksdb/write_batch.h>

#include <map>

#include "snowcar/common/log.h"
#include "state/dedup_block.h"
#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"

namespace snowcar::state {

// Version 1 keyed dedup entries by table alias only, version 2 by (instance, alias) like the
// cursors. In version 1 one alias had one set of entries whatever instance its cursors named;
// every commit rewrote them next to the cursor it wrote, so they belong to the alias's most
// recently written cursor. They move there, all in one WriteBatch with the new version: a
// crash during the migration leaves version 1 untouched and the next open migrates again.
// Entries of an alias without any cursor could never be used (a reset removes both) and are
// dropped.
Status StateStoreImpl::MigrateFromVersion1() {
  SNOWCAR_ASSIGN_OR_RETURN(std::vector<StoredCursor> cursors, ScanCursors(""));
  std::map<std::string, const StoredCursor*, std::less<>> newest;
  for (const StoredCursor& c : cursors) {
    const StoredCursor*& slot = newest[c.identity.table];
    if (slot == nullptr || c.updated_at_ms > slot->updated_at_ms) slot = &c;
  }
  rocksdb::WriteBatch batch;
  rocksdb::Status s;
  uint64_t moved = 0;
  uint64_t dropped = 0;
  {
    [[maybe_unused]] const auto turn = TsanTurn();
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, dedup_cf_));
    for (it->SeekToFirst(); it->Valid() && s.ok(); it->Next()) {
      std::string_view rest = it->key().ToStringView();
      std::string_view table;
      int64_t ts;
      std::string_view sys_id;
      uint32_t mod;
      if (!codec::ConsumePart(&rest, &table) ||
          !codec::DecodeDedupSuffix(rest, &ts, &sys_id, &mod)) {
        return Status::DataLoss("state dir " + dir_ +
                                ": a schema version 1 dedup entry is unreadable (" +
                                std::to_string(it->key().size()) + "-byte key)");
      }
      s = batch.Delete(dedup_cf_, it->key());
      auto owner = newest.find(table);
      if (owner == newest.end()) {
        ++dropped;
        continue;
      }
      std::string key = codec::DedupPrefix(owner->second->identity.instance, table);
      codec::AppendDedupSuffix(&key, ts, sys_id, mod);
      if (s.ok()) s = batch.Put(dedup_cf_, key, rocksdb::Slice());
      ++moved;
    }
    SNOWCAR_RETURN_IF_ERROR(
        FromRocks(it->status(), dir_, "reading schema version 1 dedup entries"));
  }
  if (s.ok()) {
    s = batch.Put(meta_cf_, std::string(codec::kSchemaVersionKey), codec::EncodeSchemaVersion(2));
  }
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "building the migration to schema version 2"));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  SNOWCAR_RETURN_IF_ERROR(FromRocks(db_->Write(wo, &batch), dir_, "migrating to schema version 2"));
  SNOWCAR_LOG(kInfo, "state.migrated",
              {{"dir", dir_},
               {"from_version", 1},
               {"to_version", 2},
               {"dedup_entries_moved", moved},
               {"dedup_entries_dropped", dropped}});
  return Status::Ok();
}

// Version 2 wrote a key per dedup entry; version 3 writes a block per commit (a value holding
// the commit's entries, state/dedup_block.h). Each (instance, table)'s entries, read in key
// order (timestamp order, as a loaded version 2 window holds them), become blocks 1, 2, ... of
// at most kEntriesPerBlock entries.
Status StateStoreImpl::MigrateFromVersion2() {
  constexpr size_t kEntriesPerBlock = 4096;
  rocksdb::WriteBatch batch;
  rocksdb::Status s;
  uint64_t entries = 0;
  uint64_t blocks = 0;
  {
    [[maybe_unused]] const auto turn = TsanTurn();
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, dedup_cf_));
    std::string prefix;  // of the table being packed
    std::string value;
    size_t in_block = 0;
    uint64_t seq = 0;
    auto flush = [&] {
      if (in_block == 0 || !s.ok()) return;
      std::string key = prefix;
      codec::AppendBlockSeq(&key, seq);
      s = batch.Put(dedup_cf_, key, value);
      ++blocks;
      in_block = 0;
    };
    for (it->SeekToFirst(); it->Valid() && s.ok(); it->Next()) {
      std::string_view rest = it->key().ToStringView();
      std::string_view instance;
      std::string_view table;
      int64_t ts;
      std::string_view sys_id;
      uint32_t mod;
      if (!codec::ConsumePart(&rest, &instance) || !codec::ConsumePart(&rest, &table) ||
          !codec::DecodeDedupSuffix(rest, &ts, &sys_id, &mod)) {
        return Status::DataLoss("state dir " + dir_ +
                                ": a schema version 2 dedup entry is unreadable (" +
                                std::to_string(it->key().size()) + "-byte key)");
      }
      const std::string_view key_prefix =
          it->key().ToStringView().substr(0, it->key().size() - rest.size());
      if (key_prefix != prefix) {
        flush();
        prefix.assign(key_prefix);
        seq = 0;
        // Every old key of the table goes; the blocks put after this in the batch stay.
        if (s.ok()) {
          s = batch.DeleteRange(dedup_cf_, prefix, codec::PrefixSuccessor(prefix));
        }
      }
      if (in_block == 0) {
        block::Begin(&value);
        ++seq;
      }
      block::Append(&value, ts, sys_id, mod);
      ++entries;
      if (++in_block == kEntriesPerBlock) flush();
    }
    flush();
    SNOWCAR_RETURN_IF_ERROR(
        FromRocks(it->status(), dir_, "reading schema version 2 dedup entries"));
  }
  if (s.ok()) {
    s = batch.Put(meta_cf_, std::string(codec::kSchemaVersionKey), codec::EncodeSchemaVersion(3));
  }
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "building the migration to schema version 3"));
  rocksdb::WriteOptions wo;
  wo.sync = true;
  SNOWCAR_RETURN_IF_ERROR(FromRocks(db_->Write(wo, &batch), dir_, "migrating to schema version 3"));
  SNOWCAR_LOG(kInfo, "state.migrated",
              {{"dir", dir_},
               {"from_version", 2},
               {"to_version", 3},
               {"dedup_entries", entries},
               {"dedup_blocks", blocks}});
  return Status::Ok();
}

}  // namespace snowcar::state
