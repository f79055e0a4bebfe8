// SPDX-License-Identifier: Apache-2.0
// The dedup family: scan, count and replace the durable dedup index, and the commit that
// writes a cursor with its dedup block in one batch (deleting the blocks the window left).
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "state/dedup_block.h"
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
// Up to this many dropped blocks are deleted by key; more take one range delete.
constexpr size_t kPointDeleteLimit = 4;
}  // namespace

// ---- dedup --------------------------------------------------------------------------------

template <typename Fn>
Status StateStoreImpl::ScanDedup(std::string_view instance, std::string_view table, Fn&& fn) {
  return ScanDedupBlocks(
      instance, table, [](uint64_t) {}, fn);
}

template <typename BlockFn, typename Fn>
Status StateStoreImpl::ScanDedupBlocks(std::string_view instance, std::string_view table,
                                       BlockFn&& on_block, Fn&& fn) {
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
    uint64_t seq = 0;
    if (!codec::DecodeBlockSeq(key.substr(prefix.size()), &seq)) {
      return Status::DataLoss("state dir " + dir_ + ": a dedup block key of table " + Quote(table) +
                              " is unreadable (" + std::to_string(key.size()) + "-byte key)");
    }
    on_block(seq);
    block::Reader reader(it->value().ToStringView());
    int64_t ts;
    std::string_view sys_id;
    uint32_t mod;
    while (reader.Next(&ts, &sys_id, &mod)) fn(ts, sys_id, mod);
    if (!reader.ok()) {
      return Status::DataLoss("state dir " + dir_ + ": dedup block " + std::to_string(seq) +
                              " of table " + Quote(table) + " is unreadable (" +
                              std::to_string(it->value().size()) + "-byte value)");
    }
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
  SNOWCAR_RETURN_IF_ERROR(ScanDedupBlocks(
      identity.instance, identity.table, [&](uint64_t seq) { window->BeginLoadedBlock(seq); },
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
  int64_t prune = bound;  // what this commit takes out of the window
  if (!w->ts_ordered() && w->CountBelow(bound, (w->size() + 3) / 4) * 4 < w->size()) {
    // Rows out of timestamp order (a parallel backfill's ranges interleave): pruning them
    // means a sort, a rebuilt index and every block written again, which at every commit
    // (128 rows) would cost more than the rows. So entries below the bound stay, in memory
    // and on disk alike, until they are a quarter of the window: an entry below the bound is
    // never needed again and never wrong (its row is never re-read), only kept a little longer.
    prune = std::numeric_limits<int64_t>::min();
  }
  // One value per commit, whole blocks deleted at the front: a row costs RocksDB a few bytes
  // of a value instead of a key of its own written, sorted, flushed and deleted again
  // (docs/performance.md, "Dedup index").
  const DedupWindowImpl::DiskPlan plan = w->PlanCommit(prune);
  const std::string& prefix = w->key_prefix();
  auto block_key = [&](uint64_t seq) {
    std::string key = prefix;
    codec::AppendBlockSeq(&key, seq);
    return key;
  };
  if (plan.deleted > kPointDeleteLimit) {
    // Starts at the oldest block there is, so the ranges of successive commits never nest
    // (RocksDB's cost of fragmenting nested range tombstones grows with their square).
    if (s.ok()) {
      s = batch.DeleteRange(dedup_cf_, block_key(plan.delete_from), block_key(plan.delete_to));
    }
  } else {
    for (uint64_t seq = plan.delete_from; seq < plan.delete_to && s.ok(); ++seq) {
      s = batch.Delete(dedup_cf_, block_key(seq));
    }
  }
  // Puts after deletes: a block rewritten in place survives.
  for (const auto& [seq, value] : plan.puts) {
    if (s.ok()) s = batch.Put(dedup_cf_, block_key(seq), value);
  }
  SNOWCAR_RETURN_IF_ERROR(
      FromRocks(s, dir_, "building the commit of table " + Quote(identity.table)));
  return prune;
}

}  // namespace snowcar::state
