// SPDX-License-Identifier: Apache-2.0
// The dedup family: scan, count and replace the durable dedup index, and the commit that
// writes a cursor with its dedup entries in one batch (pruning what the overlap left behind).
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "state/dedup_window_impl.h"
#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"
#include "state/store_detail.h"

namespace snowcar::state {

using detail::CheckTable;
using detail::Quote;
using detail::SaturatingSub;

namespace {
// Up to this many pruned entries are deleted by key; more take one range delete.
constexpr size_t kPointDeleteLimit = 64;
}  // namespace

// ---- dedup --------------------------------------------------------------------------------

template <typename Fn>
Status StateStoreImpl::ScanDedup(std::string_view instance, std::string_view table, Fn&& fn) {
  [[maybe_unused]] const auto turn = TsanTurn();
  const std::string prefix = codec::DedupPrefix(instance, table);
  const std::string upper = codec::PrefixSuccessor(prefix);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  ro.fill_cache = false;
  ro.readahead_size = 1 << 20;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, dedup_cf_));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    std::string_view key = it->key().ToStringView();
    int64_t ts;
    std::string_view sys_id;
    uint32_t mod;
    if (!codec::DecodeDedupSuffix(key.substr(prefix.size()), &ts, &sys_id, &mod)) {
      return Status::DataLoss("state dir " + dir_ + ": a dedup entry of table " + Quote(table) +
                              " is unreadable (" + std::to_string(key.size()) + "-byte key)");
    }
    fn(ts, sys_id, mod);
  }
  return FromRocks(it->status(), dir_, "reading dedup entries of table " + Quote(table));
}

template <typename Fn>
Status StateStoreImpl::ScanDedupOfAlias(std::string_view table, Fn&& fn) {
  SNOWCAR_ASSIGN_OR_RETURN(auto cursors, CursorsForTable(table));
  std::set<std::string, std::less<>> instances;
  for (const auto& sc : cursors) instances.insert(sc.identity.instance);
  for (const std::string& instance : instances) {
    SNOWCAR_RETURN_IF_ERROR(ScanDedup(instance, table, fn));
  }
  return Status::Ok();
}

Result<std::unique_ptr<DedupWindow>> StateStoreImpl::LoadDedupWindow(const CursorIdentity& identity,
                                                                     const DedupPolicy& policy) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(identity.table));
  auto window = std::make_unique<DedupWindowImpl>(identity.instance, identity.table, policy, this);
  SNOWCAR_RETURN_IF_ERROR(ScanDedup(
      identity.instance, identity.table,
      [&](int64_t ts, std::string_view id, uint32_t mod) { window->AddCommitted(ts, id, mod); }));
  return std::unique_ptr<DedupWindow>(std::move(window));
}

Result<std::vector<DedupKey>> StateStoreImpl::DedupEntriesFor(std::string_view table,
                                                              std::string_view sys_id) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(table));
  std::vector<DedupKey> out;
  SNOWCAR_RETURN_IF_ERROR(
      ScanDedupOfAlias(table, [&](int64_t ts, std::string_view id, uint32_t mod) {
        if (id == sys_id) out.push_back(DedupKey{ts, std::string(id), mod});
      }));
  std::stable_sort(out.begin(), out.end(),
                   [](const DedupKey& a, const DedupKey& b) { return a.ts < b.ts; });
  return out;
}

Result<uint64_t> StateStoreImpl::DedupCount(std::string_view table) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(table));
  uint64_t n = 0;
  SNOWCAR_RETURN_IF_ERROR(
      ScanDedupOfAlias(table, [&](int64_t, std::string_view, uint32_t) { ++n; }));
  return n;
}

Result<std::vector<DedupKey>> StateStoreImpl::DedupEntries(const CursorIdentity& identity) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(identity.table));
  std::vector<DedupKey> out;
  SNOWCAR_RETURN_IF_ERROR(ScanDedup(identity.instance, identity.table,
                                    [&](int64_t ts, std::string_view id, uint32_t mod) {
                                      out.push_back(DedupKey{ts, std::string(id), mod});
                                    }));
  return out;
}

Status StateStoreImpl::ReplaceTable(const CursorIdentity& identity, const Cursor& cursor,
                                    const std::vector<DedupKey>& entries,
                                    const DedupPolicy& policy) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(identity.table));
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(AddTableDeletion(identity.table, batch));
  // The deletion above covers the instances the alias has cursors for; entries of this
  // identity's instance go too, whatever is stored.
  const std::string prefix = codec::DedupPrefix(identity.instance, identity.table);
  SNOWCAR_RETURN_IF_ERROR(
      FromRocks(batch.DeleteRange(dedup_cf_, prefix, codec::PrefixSuccessor(prefix)), dir_,
                "replacing table " + Quote(identity.table)));
  DedupWindowImpl window(identity.instance, identity.table, policy, this);
  for (const DedupKey& key : entries) window.Insert(key);
  SNOWCAR_ASSIGN_OR_RETURN(int64_t bound, AddCommit(identity, cursor, window, batch));
  SNOWCAR_RETURN_IF_ERROR(Write(&batch, "replacing the state of table " + Quote(identity.table)));
  window.OnCommitted(bound);
  return Status::Ok();
}

Status StateStoreImpl::Commit(const CursorIdentity& identity, const Cursor& cursor,
                              DedupWindow& window) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(identity.table));
  auto* w = dynamic_cast<DedupWindowImpl*>(&window);
  if (w == nullptr || w->owner() != this) {
    return Status::InvalidArgument("commit for table " + Quote(identity.table) +
                                   ": the dedup window was not loaded from this state store");
  }
  if (w->table() != identity.table || w->instance() != identity.instance) {
    return Status::InvalidArgument("commit for table " + Quote(identity.table) + " on " +
                                   Quote(identity.instance) +
                                   " was given the dedup window of table " + Quote(w->table()) +
                                   " on " + Quote(w->instance()));
  }
  rocksdb::WriteBatch batch;
  SNOWCAR_ASSIGN_OR_RETURN(int64_t bound, AddCommit(identity, cursor, *w, batch));
  SNOWCAR_RETURN_IF_ERROR(Write(&batch, "committing table " + Quote(identity.table)));
  w->OnCommitted(bound);
  return Status::Ok();
}

Result<int64_t> StateStoreImpl::AddCommit(const CursorIdentity& identity, const Cursor& cursor,
                                          DedupWindowImpl& window, rocksdb::WriteBatch& batch) {
  DedupWindowImpl* w = &window;
  const int64_t bound = SaturatingSub(cursor.ts, w->policy().overlap_seconds);
  rocksdb::Status s =
      batch.Put(cursor_cf_, codec::CursorKey(identity),
                codec::EncodeCursorValue(cursor, SystemClock::Instance().NowMillis()));
  // Pruning. Memory mirrors disk, so what must go is known entry by entry: the entries below
  // the bound and the committed entries the cap evicted. When rows came in timestamp order
  // (the normal case) all of them are older than the first second that stays, so one range
  // delete takes them, plus point deletes for evicted entries of that very second. Few
  // deletions go by key. The range starts at the oldest entry, not at the table's first key:
  // ranges that all start at one key nest, and RocksDB's cost of fragmenting nested range
  // tombstones grows with their square (measured: a reopen after 18 000 such commits spent
  // over a minute replaying the WAL). Starting at the oldest entry keeps them disjoint.
  const std::string& prefix = w->key_prefix();
  std::string key;
  key.reserve(prefix.size() + codec::kDedupFixedBytes + 32);
  auto point_delete = [&](int64_t ts, std::string_view id, uint32_t mod) {
    if (!s.ok()) return;
    key.assign(prefix);
    codec::AppendDedupSuffix(&key, ts, id, mod);
    s = batch.Delete(dedup_cf_, key);
  };
  auto range_delete = [&](int64_t from, int64_t to) {
    if (!s.ok()) return;
    std::string begin = prefix;
    codec::AppendI64Ordered(&begin, from);
    std::string end = prefix;
    codec::AppendI64Ordered(&end, to);
    s = batch.DeleteRange(dedup_cf_, begin, end);
  };
  int64_t prune = bound;  // what this commit takes out of the window
  if (w->ts_ordered()) {
    int64_t oldest = std::numeric_limits<int64_t>::max();
    if (w->size() > 0) oldest = w->MinTs();
    w->ForEachEvicted(
        [&](int64_t ts, std::string_view, uint32_t) { oldest = std::min(oldest, ts); });
    const int64_t cut = w->FirstTsAtOrAbove(bound).value_or(bound);
    const size_t doomed = w->CountBelow(cut, kPointDeleteLimit + 1) + w->evicted();
    if (doomed > kPointDeleteLimit && oldest < cut) {
      range_delete(oldest, cut);
      w->ForEachEvicted([&](int64_t ts, std::string_view id, uint32_t mod) {
        if (ts >= cut) point_delete(ts, id, mod);
      });
    } else {
      w->ForEachBelow(bound, point_delete);
      w->ForEachEvicted(point_delete);
    }
  } else if (const size_t below = w->CountBelow(bound, (w->size() + 3) / 4);
             below * 4 < w->size()) {
    // Rows out of timestamp order (a parallel backfill's ranges interleave): pruning them
    // from memory means a scan, a sort and a rebuilt index, which at every commit (128 rows)
    // cost more than the rows. So entries below the bound stay, in memory and on disk alike,
    // until they are a quarter of the window: an entry below the bound is never needed again
    // and never wrong (its row is never re-read), only kept a little longer.
    prune = std::numeric_limits<int64_t>::min();
    w->ForEachEvicted(point_delete);
  } else {
    if (below > kPointDeleteLimit) {
      range_delete(w->MinTs(), bound);
    } else {
      w->ForEachBelow(bound, point_delete);
    }
    w->ForEachEvicted(point_delete);
  }
  // Puts after deletes: an entry evicted and then emitted again is present in the end.
  w->ForEachPending([&](int64_t ts, std::string_view id, uint32_t mod) {
    if (!s.ok() || ts < prune) return;  // would be pruned by this very commit
    key.assign(prefix);
    codec::AppendDedupSuffix(&key, ts, id, mod);
    s = batch.Put(dedup_cf_, key, rocksdb::Slice());
  });
  SNOWCAR_RETURN_IF_ERROR(
      FromRocks(s, dir_, "building the commit of table " + Quote(identity.table)));
  return prune;
}

}  // namespace snowcar::state
