// SPDX-License-Identifier: Apache-2.0
// Typed records of a table's deletion capture (typed_deletes.h).
#include "typed_deletes.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <optional>

#include "reconcile_sweep.h"
#include "snowcar/common/log.h"
#include "snowcar/source/rows/record_builder.h"

namespace snowcar::source {
namespace {

std::string_view Operation(const kafka::OutRecord& record) {
  const kafka::Header* op = kafka::FindHeader(record.headers, kOperationHeader);
  return op != nullptr && op->value ? std::string_view(*op->value) : std::string_view();
}

// The untyped DELETE value's members that the table's schema has no field for, as headers
// snow.source.delete.<member>. The sys_id is the record's, the table its snow.table header,
// the last row its value; found_by already has its header (kDeleteFoundByHeader).
void MoveDetailsToHeaders(const std::string& untyped_value, kafka::Headers& headers) {
  boost::system::error_code ec;
  const boost::json::value parsed = boost::json::parse(untyped_value, ec);
  if (ec || !parsed.is_object()) return;
  for (const auto& [name, v] : parsed.get_object()) {
    if (name == "sys_id" || name == "table" || name == "last_row" || name == "found_by") continue;
    if (v.is_null()) continue;
    std::string header(kDeleteHeaderPrefix);
    header.append(name.data(), name.size());
    headers.push_back({std::move(header),
                       v.is_string() ? std::string(v.get_string()) : boost::json::serialize(v)});
  }
}

}  // namespace

std::unique_ptr<TypedDeletes> TypedDeletes::MakeIfNeeded(const SourceSettings& source,
                                                         const TableSettings& rows) {
  std::unique_ptr<TypedTable> table = TypedTable::MakeIfNeeded(source, rows, nullptr, nullptr);
  if (!table) return nullptr;
  return std::unique_ptr<TypedDeletes>(new TypedDeletes(source, rows, std::move(table)));
}

Status TypedDeletes::Sync(const RowWatermark& watermark) {
  std::shared_ptr<const TypedSnapshot> snapshot = watermark.typed.load();
  if (!snapshot) {
    return Status::FailedPrecondition("table " + rows_.alias +
                                      ": the row stream has not written a typed record yet");
  }
  return table_->Adopt(snapshot);
}

Result<kafka::OutRecord> TypedDeletes::Row(const boost::json::object& row, const RowKey& key,
                                           int64_t extracted_at_ms) {
  return table_->Build(row, key, extracted_at_ms);
}

Status TypedDeletes::RetypeDelete(kafka::OutRecord& record, std::string_view sys_id,
                                  const boost::json::object* last_row) {
  // Build gives the key and value only: topic, timestamp and headers stay the DELETE's.
  const RowKey at{record.timestamp_ms / 1000, sys_id, 0};
  std::string last_row_error;
  Result<kafka::OutRecord> built = Status::NotFound("no last row");
  if (last_row != nullptr) {
    boost::json::object row = *last_row;
    row[rows_.sys_id_field] = sys_id;  // a projection without the id field still names the row
    built = table_->Build(row, at, 0);
    if (!built.ok()) last_row_error = built.status().message();
  }
  if (!built.ok()) {
    built = table_->Build(boost::json::object{{rows_.sys_id_field, sys_id}}, at, 0);
  }
  if (!built.ok()) return built.status();
  record.key = built->key;
  if (source_.schema_mode != SchemaMode::kTyped) return Status::Ok();  // only the key is typed
  if (record.value) MoveDetailsToHeaders(*record.value, record.headers);
  if (!last_row_error.empty()) {
    record.headers.push_back(
        {std::string(kDeleteHeaderPrefix) + "last_row_error", std::move(last_row_error)});
  }
  record.value = std::move(built->value);
  return Status::Ok();
}

Status TypedDeletes::Retype(std::vector<kafka::OutRecord>& records, std::string_view sys_id,
                            const boost::json::object* last_row, const boost::json::object* row_now,
                            int64_t extracted_at_ms) {
  std::optional<kafka::OutRecord> deleted;  // the DELETE, which comes before its tombstone
  for (kafka::OutRecord& record : records) {
    const std::string_view op = Operation(record);
    if (op == "DELETE") {
      SNOWCAR_RETURN_IF_ERROR(RetypeDelete(record, sys_id, last_row));
      deleted = record;
    } else if (op == kTombstoneOperation) {
      if (!deleted) return Status::Internal("a tombstone without its DELETE before it");
      record = TombstoneFor(*deleted);  // its key, timestamp and headers, as untyped
    } else if (op == "UPSERT") {
      if (row_now == nullptr) return Status::Internal("an UPSERT without its row");
      SNOWCAR_ASSIGN_OR_RETURN(RowKey row_key, ReadRowKey(*row_now, rows_));
      SNOWCAR_ASSIGN_OR_RETURN(record, Row(*row_now, row_key, extracted_at_ms));
    }
  }
  return Status::Ok();
}

Result<std::vector<kafka::OutRecord>> TypedAuditRecords(
    const boost::json::object& audit_row, const RowKey& key, const DeletesStream& stream,
    const SourceSettings& source, int64_t extracted_at_ms, TypedDeletes& typed) {
  std::vector<kafka::OutRecord> records =
      AuditRecords(audit_row, key, stream, source, extracted_at_ms);
  if (records.empty() || !records.front().key) return records;
  SNOWCAR_RETURN_IF_ERROR(typed.Sync(*stream.watermark));
  // Untyped, every record of an entry is keyed by the deleted row's sys_id.
  const std::string sys_id = *records.front().key;
  const boost::json::value* last = audit_row.if_contains(kLastRowMember);
  const boost::json::value* now = audit_row.if_contains(kRecoveredRowMember);
  SNOWCAR_RETURN_IF_ERROR(
      typed.Retype(records, sys_id, last != nullptr ? last->if_object() : nullptr,
                   now != nullptr ? now->if_object() : nullptr, extracted_at_ms));
  return records;
}

Result<kafka::OutRecord> ReconciledRowRecord(TypedDeletes* typed, const RowWatermark& watermark,
                                             const boost::json::object& row, const RowKey& key,
                                             const TableSettings& table,
                                             const SourceSettings& source,
                                             int64_t extracted_at_ms) {
  if (typed == nullptr) return BuildRecord(row, key, table, source, extracted_at_ms);
  SNOWCAR_RETURN_IF_ERROR(typed->Sync(watermark));
  Result<kafka::OutRecord> record = typed->Row(row, key, extracted_at_ms);
  if (!record.ok()) {
    SNOWCAR_LOG(kWarn, "source.bad_row_skipped",
                {{"table", table.alias},
                 {"found_by", "reconciliation"},
                 {"error", record.status().message()}});
  }
  return record;
}

Result<std::vector<kafka::OutRecord>> ReconciledDeletes(
    TypedDeletes* typed, const RowWatermark& watermark, const TableSettings& table,
    const SourceSettings& source, const std::string& sys_id, int64_t found_at_ms,
    int64_t extracted_at_ms) {
  std::vector<kafka::OutRecord> records =
      ReconciledDeleteRecords(table, source, sys_id, found_at_ms, extracted_at_ms);
  if (typed == nullptr) return records;
  SNOWCAR_RETURN_IF_ERROR(typed->Sync(watermark));
  SNOWCAR_RETURN_IF_ERROR(typed->Retype(records, sys_id, nullptr, nullptr, extracted_at_ms));
  return records;
}

}  // namespace snowcar::source
