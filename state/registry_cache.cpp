// SPDX-License-Identifier: Apache-2.0
// The Schema Registry id cache of StateStoreImpl: opaque entries under "registry/" in the meta
// family (see include/snowcar/state/state_store.h).
#include <rocksdb/write_batch.h>

#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"

namespace snowcar::state {
namespace {

constexpr std::string_view kRegistryPrefix = "registry/";

std::string RegistryKey(std::string_view key) {
  std::string k(kRegistryPrefix);
  k.append(key);
  return k;
}

}  // namespace

Result<std::optional<std::string>> StateStoreImpl::GetRegistryEntry(std::string_view key) {
  if (key.empty()) return Status::InvalidArgument("registry cache key is empty");
  [[maybe_unused]] const auto turn = TsanTurn();
  std::string value;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_cf_, RegistryKey(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>{};
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "registry cache get"));
  return std::optional<std::string>(std::move(value));
}

Status StateStoreImpl::PutRegistryEntry(std::string_view key, std::string_view value) {
  if (key.empty()) return Status::InvalidArgument("registry cache key is empty");
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(
      FromRocks(batch.Put(meta_cf_, RegistryKey(key), value), dir_, "registry cache put"));
  return Write(&batch, "writing the schema registry cache");
}

}  // namespace snowcar::state
