// SPDX-License-Identifier: Apache-2.0
// The cursor family: load, list and reset the per-table cursors.
#include <rocksdb/write_batch.h>

#include <set>

#include "snowcar/common/log.h"
#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"
#include "state/store_detail.h"

namespace snowcar::state {

using detail::CheckTable;
using detail::Quote;

// ---- cursors ------------------------------------------------------------------------------

Result<std::vector<StoredCursor>> StateStoreImpl::ScanCursors(std::string_view prefix) {
  [[maybe_unused]] const auto turn = TsanTurn();
  std::vector<StoredCursor> out;
  std::string upper = codec::PrefixSuccessor(prefix);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  if (!upper.empty()) ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cursor_cf_));
  for (it->Seek(rocksdb::Slice(prefix.data(), prefix.size())); it->Valid(); it->Next()) {
    auto identity = codec::DecodeCursorKey(it->key().ToStringView());
    StoredCursor sc;
    if (!identity ||
        !codec::DecodeCursorValue(it->value().ToStringView(), &sc.cursor, &sc.updated_at_ms)) {
      return Status::DataLoss("state dir " + dir_ + ": a stored cursor is unreadable (" +
                              std::to_string(it->key().size()) + "-byte key)");
    }
    sc.identity = std::move(*identity);
    out.push_back(std::move(sc));
  }
  SNOWCAR_RETURN_IF_ERROR(FromRocks(it->status(), dir_, "reading cursors"));
  return out;
}

Result<std::optional<Cursor>> StateStoreImpl::LoadCursor(const CursorIdentity& identity) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(identity.table));
  SNOWCAR_ASSIGN_OR_RETURN(auto stored,
                           ScanCursors(codec::CursorPrefix(identity.instance, identity.table)));
  const StoredCursor* other = nullptr;
  for (const auto& sc : stored) {
    if (sc.identity == identity) return std::optional<Cursor>(sc.cursor);
    other = &sc;
  }
  if (other == nullptr) return std::optional<Cursor>();
  return Status::FailedPrecondition(
      "table " + Quote(identity.table) + " on " + Quote(identity.instance) +
      " has a stored cursor for query fingerprint " + Quote(other->identity.query_fingerprint) +
      " and timestamp field " + Quote(other->identity.timestamp_field) +
      ", but the configuration now gives query fingerprint " + Quote(identity.query_fingerprint) +
      " and timestamp field " + Quote(identity.timestamp_field) +
      "; the stored cursor belongs to another query and is not reused. To start this table "
      "over, reset its state with `snowcar state reset " +
      identity.table + "` (a POST on the socket API), or restore the previous query");
}

Result<std::vector<StoredCursor>> StateStoreImpl::ListCursors() { return ScanCursors(""); }

Result<std::vector<StoredCursor>> StateStoreImpl::CursorsForTable(std::string_view table) {
  SNOWCAR_ASSIGN_OR_RETURN(auto all, ScanCursors(""));
  std::erase_if(all, [&](const StoredCursor& sc) { return sc.identity.table != table; });
  return all;
}

Status StateStoreImpl::AddTableDeletion(std::string_view table, rocksdb::WriteBatch& batch) {
  SNOWCAR_ASSIGN_OR_RETURN(auto cursors, CursorsForTable(table));
  std::set<std::string, std::less<>> instances;
  for (const auto& sc : cursors) {
    SNOWCAR_RETURN_IF_ERROR(
        FromRocks(batch.Delete(cursor_cf_, codec::CursorKey(sc.identity)), dir_, "reset"));
    // A parallel backfill's ranges belong to the cursor they merge into.
    SNOWCAR_RETURN_IF_ERROR(
        FromRocks(batch.Delete(meta_cf_, codec::BackfillKey(sc.identity)), dir_, "reset"));
    instances.insert(sc.identity.instance);
  }
  // Dedup entries exist only beside a cursor of the same (instance, table): every commit
  // writes both, and this deletes both.
  for (const std::string& instance : instances) {
    const std::string prefix = codec::DedupPrefix(instance, table);
    SNOWCAR_RETURN_IF_ERROR(FromRocks(
        batch.DeleteRange(dedup_cf_, prefix, codec::PrefixSuccessor(prefix)), dir_, "reset"));
  }
  return Status::Ok();
}

Status StateStoreImpl::ResetTable(std::string_view table) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(table));
  SNOWCAR_ASSIGN_OR_RETURN(auto cursors, CursorsForTable(table));
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(AddTableDeletion(table, batch));
  SNOWCAR_RETURN_IF_ERROR(Write(&batch, "resetting table " + Quote(table)));
  SNOWCAR_LOG(kInfo, "state.table_reset",
              {{"dir", dir_}, {"table", table}, {"cursors", cursors.size()}});
  return Status::Ok();
}

}  // namespace snowcar::state
