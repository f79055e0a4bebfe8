// SPDX-License-Identifier: Apache-2.0
// The backfill family: a parallel backfill's ranges and their acknowledged positions, kept in
// the meta column family under "backfill" + the cursor key, and written in the same WriteBatch
// as the cursor they merge into (so a reader never sees one without the other).
#include <rocksdb/write_batch.h>

#include <charconv>

#include "state/dedup_window_impl.h"
#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"
#include "state/store_detail.h"

namespace snowcar::state {

using detail::CheckTable;
using detail::Quote;

namespace {

// One line per range: "<lo> <hi> <ts> <done> <n>:<sys_id>\n" (the id length-prefixed: any
// byte may appear in it).
std::string Encode(const BackfillProgress& progress) {
  std::string out = "1\n";
  for (const BackfillRange& r : progress.ranges) {
    out += std::to_string(r.lo) + ' ' + std::to_string(r.hi) + ' ' + std::to_string(r.position.ts) +
           ' ' + (r.done ? '1' : '0') + ' ' + std::to_string(r.position.sys_id.size()) + ':' +
           r.position.sys_id + '\n';
  }
  return out;
}

bool ReadInt(std::string_view* text, char stop, int64_t* value) {
  const char* end = text->data() + text->size();
  auto [p, ec] = std::from_chars(text->data(), end, *value);
  if (ec != std::errc() || p == end || *p != stop) return false;
  text->remove_prefix(static_cast<size_t>(p - text->data()) + 1);
  return true;
}

std::optional<BackfillProgress> Decode(std::string_view text) {
  if (text.substr(0, 2) != "1\n") return std::nullopt;
  text.remove_prefix(2);
  BackfillProgress progress;
  while (!text.empty()) {
    BackfillRange r;
    int64_t done = 0;
    int64_t length = 0;
    if (!ReadInt(&text, ' ', &r.lo) || !ReadInt(&text, ' ', &r.hi) ||
        !ReadInt(&text, ' ', &r.position.ts) || !ReadInt(&text, ' ', &done) ||
        !ReadInt(&text, ':', &length) || length < 0 ||
        text.size() < static_cast<size_t>(length) + 1 ||
        text[static_cast<size_t>(length)] != '\n') {
      return std::nullopt;
    }
    r.done = done != 0;
    r.position.sys_id.assign(text.substr(0, static_cast<size_t>(length)));
    text.remove_prefix(static_cast<size_t>(length) + 1);
    progress.ranges.push_back(std::move(r));
  }
  return progress;
}

}  // namespace

Result<std::optional<BackfillProgress>> StateStoreImpl::LoadBackfill(
    const CursorIdentity& identity) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(identity.table));
  [[maybe_unused]] const auto turn = TsanTurn();
  std::string value;
  const rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), meta_cf_, codec::BackfillKey(identity), &value);
  if (s.IsNotFound()) return std::optional<BackfillProgress>();
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "reading the backfill progress"));
  std::optional<BackfillProgress> progress = Decode(value);
  if (!progress) {
    return Status::DataLoss("state dir " + dir_ + ": the backfill progress of table " +
                            Quote(identity.table) + " is unreadable");
  }
  return progress;
}

Status StateStoreImpl::CommitBackfill(const CursorIdentity& identity, const Cursor& cursor,
                                      DedupWindow& window,
                                      const std::optional<BackfillProgress>& progress) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(identity.table));
  auto* w = dynamic_cast<DedupWindowImpl*>(&window);
  if (w == nullptr || w->owner() != this || w->table() != identity.table ||
      w->instance() != identity.instance) {
    return Status::InvalidArgument("commit for table " + Quote(identity.table) +
                                   ": the dedup window is not this table's from this store");
  }
  rocksdb::WriteBatch batch;
  SNOWCAR_ASSIGN_OR_RETURN(int64_t bound, AddCommit(identity, cursor, *w, batch));
  const rocksdb::Status s =
      progress ? batch.Put(meta_cf_, codec::BackfillKey(identity), Encode(*progress))
               : batch.Delete(meta_cf_, codec::BackfillKey(identity));
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "committing table " + Quote(identity.table)));
  SNOWCAR_RETURN_IF_ERROR(Write(&batch, "committing table " + Quote(identity.table)));
  w->OnCommitted(bound);
  return Status::Ok();
}

}  // namespace snowcar::state
