// SPDX-License-Identifier: Apache-2.0
// The correlation family: the sink's cache from a correlation value to the created sys_id.
#include <rocksdb/write_batch.h>

#include "state/key_codec.h"
#include "state/rocks_status.h"
#include "state/state_store_impl.h"
#include "state/store_detail.h"

namespace snowcar::state {

using detail::CheckTable;

// ---- correlation ----------------------------------------------------------------------------

Result<std::optional<std::string>> StateStoreImpl::GetCorrelation(std::string_view table,
                                                                  std::string_view field,
                                                                  std::string_view value) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(table));
  if (field.empty()) return Status::InvalidArgument("correlation field name is empty");
  std::string sys_id;
  [[maybe_unused]] const auto turn = TsanTurn();
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), correlation_cf_,
                               codec::CorrelationKey(table, field, value), &sys_id);
  if (s.IsNotFound()) return std::optional<std::string>();
  SNOWCAR_RETURN_IF_ERROR(FromRocks(s, dir_, "reading the correlation cache"));
  return std::optional<std::string>(std::move(sys_id));
}

Status StateStoreImpl::PutCorrelation(std::string_view table, std::string_view field,
                                      std::string_view value, std::string_view sys_id) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(table));
  if (field.empty()) return Status::InvalidArgument("correlation field name is empty");
  if (sys_id.empty()) return Status::InvalidArgument("correlation sys_id is empty");
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(
      FromRocks(batch.Put(correlation_cf_, codec::CorrelationKey(table, field, value), sys_id),
                dir_, "correlation put"));
  return Write(&batch, "writing the correlation cache");
}

Status StateStoreImpl::EraseCorrelation(std::string_view table, std::string_view field,
                                        std::string_view value) {
  SNOWCAR_RETURN_IF_ERROR(CheckTable(table));
  if (field.empty()) return Status::InvalidArgument("correlation field name is empty");
  rocksdb::WriteBatch batch;
  SNOWCAR_RETURN_IF_ERROR(
      FromRocks(batch.Delete(correlation_cf_, codec::CorrelationKey(table, field, value)), dir_,
                "correlation erase"));
  return Write(&batch, "erasing from the correlation cache");
}

}  // namespace snowcar::state
