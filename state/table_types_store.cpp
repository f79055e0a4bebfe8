// SPDX-License-Identifier: Apache-2.0
// The cached column types of typed source records (StateStore::LoadTableTypes /
// StoreTableTypes), with the super-class chain they were read along (incident -> task) in the
// same value, so the chain is cached and refreshed with the types. They live in the meta family
// under their own key prefix: a few small values per table, rewritten only when sys_dictionary is
// read again, so no family of their own (and no state schema change) is needed. Kept apart from
// state_store_impl.cpp, which holds the cursor and dedup paths.
#include <rocksdb/write_batch.h>

#include "state/rocks_status.h"
#include "state/state_store_impl.h"

namespace snowcar::state {
namespace {

// "table_types\x1f<instance>\x1f<table>": the unit separator appears in neither a host name
// nor a table name, so no key is a prefix of another's.
std::string TypesKey(std::string_view instance, std::string_view table) {
  std::string key = "table_types\x1f";
  key.append(instance);
  key += '\x1f';
  key.append(table);
  return key;
}

}  // namespace

Result<std::optional<std::string>> StateStoreImpl::LoadTableTypes(std::string_view instance,
                                                                  std::string_view table) {
  std::string value;
  [[maybe_unused]] const auto turn = TsanTurn();
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), meta_cf_, TypesKey(instance, table), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "reading the column types of " + std::string(table)));
  return std::optional<std::string>(std::move(value));
}

Status StateStoreImpl::StoreTableTypes(std::string_view instance, std::string_view table,
                                       std::string_view encoded) {
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(
      FromRocks(batch.Put(meta_cf_, TypesKey(instance, table), encoded), dir_, "column types put"));
  return Write(&batch, "storing the column types of " + std::string(table));
}

}  // namespace snowcar::state
