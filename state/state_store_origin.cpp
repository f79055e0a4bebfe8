// SPDX-License-Identifier: Apache-2.0
// The origin family: which row versions the sink wrote, and from which command record. The
// sink records a version after each successful write; the source looks up every version it
// emits. Layout and in-memory index: state/origin_index.h.
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <limits>

#include "snowcar/common/time.h"
#include "state/key_codec.h"
#include "state/origin_index.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"
#include "state/store_detail.h"

namespace snowcar::state {

using detail::CheckTable;
using detail::Quote;
using detail::SaturatingSub;

namespace {

std::string Describe(const OriginKey& key) {
  return Quote(key.table) + " row " + key.sys_id + " version " + std::to_string(key.mod_count);
}

}  // namespace

bool StateStoreImpl::AddMissingOriginFamily(std::vector<std::string>& families) {
  if (std::find(families.begin(), families.end(), codec::kOriginCf) != families.end()) {
    return false;
  }
  families.emplace_back(codec::kOriginCf);
  return true;
}

Status StateStoreImpl::LoadOrigins() {
  origin::Memory& m = *origins_;
  std::lock_guard<std::mutex> lock(m.mu);
  m.hashes.Clear();
  uint64_t count = 0;
  bool first = true;
  [[maybe_unused]] const auto turn = TsanTurn();
  const std::string upper(1, origin::kTimeSpace + 1);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, origin_cf_));
  std::string version_key;
  for (it->Seek(std::string(1, origin::kTimeSpace)); it->Valid(); it->Next()) {
    int64_t written_at_ms = 0;
    if (!origin::SplitTimeKey(it->key().ToStringView(), &version_key, &written_at_ms)) {
      return Status::DataLoss("state dir " + dir_ + ": an origin entry is unreadable (" +
                              std::to_string(it->key().size()) + "-byte key)");
    }
    if (first) m.scan_from = it->key().ToString();
    first = false;
    m.hashes.Add(version_key);
    ++count;
  }
  SNOWCAR_RETURN_IF_ERROR(FromRocks(it->status(), dir_, "reading the origin entries"));
  m.count.store(count, std::memory_order_relaxed);
  return Status::Ok();
}

Status StateStoreImpl::RecordOrigin(const OriginKey& key, const Origin& value,
                                    const OriginPolicy& policy) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(key.table));
  if (key.sys_id.empty()) return Status::InvalidArgument("origin sys_id is empty");
  if (policy.window_records == 0) return Status::Ok();  // remembers nothing, by configuration
  std::string version_key;
  origin::VersionKey(&version_key, key.instance, key.table, key.sys_id, key.mod_count);
  const std::string time_key = origin::TimeKey(version_key, value.written_at_ms);

  origin::Memory& m = *origins_;
  std::lock_guard<std::mutex> lock(m.mu);
  rocksdb::WriteBatch batch;
  rocksdb::Status s;
  // The same version recorded again (a lane retry after its report failed): overwrite it and
  // drop its old place in the time index, so it is counted once.
  std::string old_time_key;
  if (m.hashes.MayContain(version_key)) {
    std::string old;
    [[maybe_unused]] const auto turn = TsanTurn();
    rocksdb::Status got = db_->Get(rocksdb::ReadOptions(), origin_cf_, version_key, &old);
    if (!got.IsNotFound()) {
      SNOWCAR_RETURN_IF_ERROR(FromRocks(got, dir_, "reading the origin of " + Describe(key)));
      Origin previous;
      if (origin::DecodeValue(old, &previous)) {
        old_time_key = origin::TimeKey(version_key, previous.written_at_ms);
        if (old_time_key != time_key) s = batch.Delete(origin_cf_, old_time_key);
      }
    }
  }
  const bool existed = !old_time_key.empty();
  if (s.ok()) s = batch.Put(origin_cf_, version_key, origin::EncodeValue(value));
  if (s.ok()) s = batch.Put(origin_cf_, time_key, rocksdb::Slice());
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "building the origin record of " + Describe(key)));

  // Pruning, oldest first: beyond the count, or older than the window. The new entry is the
  // newest and is never pruned here (window_records is at least 1).
  uint64_t count = m.count.load(std::memory_order_relaxed) + (existed ? 0 : 1);
  const int64_t cutoff_ms = SaturatingSub(value.written_at_ms, policy.window_seconds * 1000);
  std::vector<std::string> pruned;
  std::string next_scan_from = time_key;
  {
    [[maybe_unused]] const auto turn = TsanTurn();
    const std::string upper(1, origin::kTimeSpace + 1);
    rocksdb::Slice upper_slice(upper);
    rocksdb::ReadOptions ro;
    ro.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, origin_cf_));
    std::string pruned_version;
    for (it->Seek(m.scan_from); it->Valid() && s.ok(); it->Next()) {
      if (it->key().ToStringView() == old_time_key) continue;  // already deleted above
      int64_t written_at_ms = 0;
      if (!origin::SplitTimeKey(it->key().ToStringView(), &pruned_version, &written_at_ms)) {
        return Status::DataLoss("state dir " + dir_ + ": an origin entry is unreadable (" +
                                std::to_string(it->key().size()) + "-byte key)");
      }
      if (count <= policy.window_records && written_at_ms >= cutoff_ms) {
        next_scan_from = std::min(next_scan_from, it->key().ToString());
        break;
      }
      if (pruned_version == version_key) continue;  // rewritten above, at its new time
      s = batch.Delete(origin_cf_, it->key());
      if (s.ok()) s = batch.Delete(origin_cf_, pruned_version);
      pruned.push_back(pruned_version);
      --count;
    }
    SNOWCAR_RETURN_IF_ERROR(FromRocks(it->status(), dir_, "reading the origin entries"));
  }
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "building the origin record of " + Describe(key)));
  SNOWCAR_RETURN_IF_ERROR(Write(&batch, "recording the origin of " + Describe(key)));
  if (!existed) m.hashes.Add(version_key);
  for (const std::string& k : pruned) m.hashes.Remove(k);
  m.count.store(count, std::memory_order_relaxed);
  m.scan_from = std::move(next_scan_from);
  return Status::Ok();
}

Result<std::optional<Origin>> StateStoreImpl::FindOrigin(std::string_view instance,
                                                         std::string_view table,
                                                         std::string_view sys_id,
                                                         uint32_t mod_count) {
  origin::Memory& m = *origins_;
  // Without a single recorded version (the sink is off, or wrote nothing) nothing is built.
  if (m.count.load(std::memory_order_relaxed) == 0) return std::optional<Origin>();
  thread_local std::string version_key;
  origin::VersionKey(&version_key, instance, table, sys_id, mod_count);
  {
    std::lock_guard<std::mutex> lock(m.mu);
    if (!m.hashes.MayContain(version_key)) return std::optional<Origin>();
  }
  std::string value;
  [[maybe_unused]] const auto turn = TsanTurn();
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), origin_cf_, version_key, &value);
  if (s.IsNotFound()) return std::optional<Origin>();  // a hash shared with another version
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "reading an origin entry"));
  Origin origin;
  if (!origin::DecodeValue(value, &origin)) {
    return Status::DataLoss("state dir " + dir_ + ": the origin entry of " + Quote(table) +
                            " row " + std::string(sys_id) + " is unreadable (" +
                            std::to_string(value.size()) + "-byte value)");
  }
  // Older than the window: forgotten, although only the next RecordOrigin deletes it (after
  // a quiet sink that may be much later).
  if (const int64_t window_ms = m.window_ms.load(std::memory_order_relaxed); window_ms >= 0) {
    const Clock* clock = m.clock.load(std::memory_order_relaxed);
    const int64_t now = (clock != nullptr ? *clock : SystemClock::Instance()).NowMillis();
    if (origin.written_at_ms < SaturatingSub(now, window_ms)) return std::optional<Origin>();
  }
  return std::optional<Origin>(std::move(origin));
}

void StateStoreImpl::SetOriginWindow(int64_t window_seconds, const Clock* clock) {
  origins_->clock.store(clock, std::memory_order_relaxed);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  origins_->window_ms.store(window_seconds > kMax / 1000 ? kMax : window_seconds * 1000,
                            std::memory_order_relaxed);
}

Result<std::vector<StoredOrigin>> StateStoreImpl::OriginsFor(std::string_view table,
                                                             std::string_view sys_id) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(table));
  std::vector<StoredOrigin> out;
  [[maybe_unused]] const auto turn = TsanTurn();
  const std::string prefix = origin::RowPrefix(table, sys_id);
  const std::string upper = codec::PrefixSuccessor(prefix);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, origin_cf_));
  for (it->Seek(prefix); it->Valid(); it->Next()) {
    StoredOrigin entry;
    if (!origin::DecodeVersionKey(it->key().ToStringView(), &entry.key) ||
        !origin::DecodeValue(it->value().ToStringView(), &entry.origin)) {
      return Status::DataLoss("state dir " + dir_ + ": an origin entry of " + Quote(table) +
                              " row " + std::string(sys_id) + " is unreadable");
    }
    out.push_back(std::move(entry));
  }
  SNOWCAR_RETURN_IF_ERROR(FromRocks(it->status(), dir_, "reading origin entries"));
  std::stable_sort(out.begin(), out.end(), [](const StoredOrigin& a, const StoredOrigin& b) {
    return a.key.mod_count < b.key.mod_count;
  });
  return out;
}

Result<uint64_t> StateStoreImpl::OriginCount() {
  return origins_->count.load(std::memory_order_relaxed);
}

}  // namespace snowcar::state
