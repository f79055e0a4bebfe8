// SPDX-License-Identifier: Apache-2.0
// The idset family: per (instance, table) the sys_ids the source emitted and has not deleted,
// and the reconciliation sweep's position (docs/state-store.md, "Id sets").
//
// Layout: key = part(instance) part(table) 'I' 16 bytes (the 32-hex sys_id as binary), empty
// value; the sweep's state is part(instance) part(table) 'S' -> the source's own encoding, and
// the manifest of the copy on the changelog part(instance) part(table) 'M' -> likewise.
// Lower-case hex and its binary sort alike, so a range of the set is a range of keys, in the
// instance's ORDERBYsys_id order.
#include <rocksdb/write_batch.h>

#include <memory>

#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"
#include "state/store_detail.h"

namespace snowcar::state {
namespace {

constexpr char kIdTag = 'I';
constexpr char kSweepTag = 'S';
constexpr char kManifestTag = 'M';
constexpr size_t kBinaryIdBytes = 16;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool AppendBinaryId(std::string* out, std::string_view sys_id) {
  if (sys_id.size() != 2 * kBinaryIdBytes) return false;
  for (size_t i = 0; i < sys_id.size(); i += 2) {
    const int hi = HexDigit(sys_id[i]);
    const int lo = HexDigit(sys_id[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>((hi << 4) | lo));
  }
  return true;
}

std::string HexId(std::string_view binary) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(binary.size() * 2);
  for (const char c : binary) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string Prefix(std::string_view instance, std::string_view table, char tag) {
  std::string key;
  codec::AppendPart(&key, instance);
  codec::AppendPart(&key, table);
  key.push_back(tag);
  return key;
}

Status BadId(std::string_view sys_id) {
  return Status::InvalidArgument("id set: '" + std::string(sys_id.substr(0, 64)) +
                                 "' is not a 32-hex sys_id");
}

}  // namespace

Status StateStoreImpl::EnsureIdSetFamily() {
  for (rocksdb::ColumnFamilyHandle* h : handles_) {
    if (h->GetName() == codec::kIdSetCf) {
      idset_cf_ = h;
      return Status::Ok();
    }
  }
  rocksdb::ColumnFamilyOptions o;
  o.write_buffer_size = 4 << 20;
  o.max_write_buffer_number = 2;
  rocksdb::ColumnFamilyHandle* h = nullptr;
  SNOWCAR_RETURN_IF_ERROR(FromRocks(db_->CreateColumnFamily(o, codec::kIdSetCf, &h), dir_,
                                    "creating the idset family"));
  handles_.push_back(h);
  idset_cf_ = h;
  return Status::Ok();
}

Status StateStoreImpl::UpdateIdSet(std::string_view instance, std::string_view table,
                                   const std::vector<std::string>& add,
                                   const std::vector<std::string>& remove) {
  SNOWCAR_RETURN_IF_ERROR(detail::CheckTable(table));
  if (add.empty() && remove.empty()) return Status::Ok();
  const std::string prefix = Prefix(instance, table, kIdTag);
  rocksdb::WriteBatch batch;
  std::string key;
  for (const std::string& id : add) {
    key = prefix;
    if (!AppendBinaryId(&key, id)) return BadId(id);
    SNOWCAR_RETURN_IF_ERROR(FromRocks(batch.Put(idset_cf_, key, rocksdb::Slice()), dir_, "id put"));
  }
  for (const std::string& id : remove) {
    key = prefix;
    if (!AppendBinaryId(&key, id)) return BadId(id);
    SNOWCAR_RETURN_IF_ERROR(FromRocks(batch.Delete(idset_cf_, key), dir_, "id delete"));
  }
  return Write(&batch, "writing the id set of " + detail::Quote(table));
}

Result<std::vector<std::string>> StateStoreImpl::IdSetRange(std::string_view instance,
                                                            std::string_view table,
                                                            std::string_view after,
                                                            std::string_view up_to, size_t limit) {
  SNOWCAR_RETURN_IF_ERROR(detail::CheckTable(table));
  const std::string prefix = Prefix(instance, table, kIdTag);
  std::string start = prefix;
  if (!after.empty() && !AppendBinaryId(&start, after)) return BadId(after);
  std::string end = prefix;
  if (!up_to.empty() && !AppendBinaryId(&end, up_to)) return BadId(up_to);
  const std::string past_prefix = codec::PrefixSuccessor(prefix);
  std::vector<std::string> out;
  [[maybe_unused]] const auto turn = TsanTurn();
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(past_prefix);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, idset_cf_));
  for (it->Seek(start); it->Valid() && out.size() < limit; it->Next()) {
    const rocksdb::Slice k = it->key();
    if (!after.empty() && k.compare(rocksdb::Slice(start)) == 0) continue;  // (after, ...
    if (!up_to.empty() && k.compare(rocksdb::Slice(end)) > 0) break;        // ..., up_to]
    if (k.size() != prefix.size() + kBinaryIdBytes) continue;
    out.push_back(HexId(std::string_view(k.data() + prefix.size(), kBinaryIdBytes)));
  }
  SNOWCAR_RETURN_IF_ERROR(FromRocks(it->status(), dir_, "reading the id set"));
  return out;
}

Result<uint64_t> StateStoreImpl::IdSetCount(std::string_view instance, std::string_view table) {
  SNOWCAR_RETURN_IF_ERROR(detail::CheckTable(table));
  const std::string prefix = Prefix(instance, table, kIdTag);
  const std::string past_prefix = codec::PrefixSuccessor(prefix);
  [[maybe_unused]] const auto turn = TsanTurn();
  rocksdb::ReadOptions ro;
  rocksdb::Slice upper(past_prefix);
  ro.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, idset_cf_));
  uint64_t n = 0;
  for (it->Seek(prefix); it->Valid(); it->Next()) ++n;
  SNOWCAR_RETURN_IF_ERROR(FromRocks(it->status(), dir_, "counting the id set"));
  return n;
}

Status StateStoreImpl::ClearIdSet(std::string_view instance, std::string_view table) {
  SNOWCAR_RETURN_IF_ERROR(detail::CheckTable(table));
  const std::string prefix = Prefix(instance, table, kIdTag);
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(FromRocks(
      batch.DeleteRange(idset_cf_, prefix, codec::PrefixSuccessor(prefix)), dir_, "id clear"));
  return Write(&batch, "clearing the id set of " + detail::Quote(table));
}

Result<std::optional<std::string>> StateStoreImpl::GetIdSetValue(std::string_view instance,
                                                                 std::string_view table, char tag,
                                                                 std::string_view what) {
  SNOWCAR_RETURN_IF_ERROR(detail::CheckTable(table));
  std::string value;
  [[maybe_unused]] const auto turn = TsanTurn();
  rocksdb::Status s =
      db_->Get(rocksdb::ReadOptions(), idset_cf_, Prefix(instance, table, tag), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "reading the " + std::string(what)));
  return std::optional<std::string>(std::move(value));
}

Status StateStoreImpl::PutIdSetValue(std::string_view instance, std::string_view table, char tag,
                                     std::string_view value, std::string_view what) {
  SNOWCAR_RETURN_IF_ERROR(detail::CheckTable(table));
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(FromRocks(batch.Put(idset_cf_, Prefix(instance, table, tag),
                                              rocksdb::Slice(value.data(), value.size())),
                                    dir_, std::string(what) + " put"));
  return Write(&batch, "writing the " + std::string(what) + " of " + detail::Quote(table));
}

Result<std::optional<std::string>> StateStoreImpl::GetSweepState(std::string_view instance,
                                                                 std::string_view table) {
  return GetIdSetValue(instance, table, kSweepTag, "sweep state");
}

Status StateStoreImpl::PutSweepState(std::string_view instance, std::string_view table,
                                     std::string_view value) {
  return PutIdSetValue(instance, table, kSweepTag, value, "sweep state");
}

Result<std::optional<std::string>> StateStoreImpl::GetIdSetManifest(std::string_view instance,
                                                                    std::string_view table) {
  return GetIdSetValue(instance, table, kManifestTag, "id set manifest");
}

Status StateStoreImpl::PutIdSetManifest(std::string_view instance, std::string_view table,
                                        std::string_view value) {
  return PutIdSetValue(instance, table, kManifestTag, value, "id set manifest");
}

}  // namespace snowcar::state
