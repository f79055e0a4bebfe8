// SPDX-License-Identifier: Apache-2.0
// The records a typed table's deletion capture writes (snow.table.<alias>.deletes with a typed
// value.format or key.format, docs/source.md "Deletes of typed tables"): its deletes stream's
// and its reconciliation's DELETEs, tombstones and re-read rows, in the encoding of the table's
// UPSERTs.
//
// Both build their records as for an untyped table (audit_stream.h, reconcile_sweep.h); this
// file re-encodes them with the row stream's types and schema ids (typed_snapshot.h), through
// the very TypedTable::Build that writes the UPSERTs, so that:
//   - every key is the bytes the row's UPSERTs carry (same partition, compaction works), the
//     tombstone's too;
//   - a re-read row is the UPSERT the row stream would write;
//   - a DELETE's value is a record of the table's schema: the row as sys_audit_delete kept it
//     (deletes.last.row) or, without one, a record holding only the sys_id. What the untyped
//     value says besides the row (deleted_at, deleted_by, audit_sys_id, found_gone_at,
//     last_row_error) has no field in that schema and goes into headers
//     `snow.source.delete.<member>`.
// With only key.format typed the values stay the untyped ones; only the keys change.
//
// No format is named here: a new value or key format plugs into TypedEncoder, EncodeKey and
// TypedTable::Build, and the deletion records follow.
//
// One per deletes stream and per reconciler, used on its strand only.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <string_view>
#include <vector>

#include "../typed/typed_table.h"
#include "audit_stream.h"
#include "snowcar/kafka/record.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source {

inline constexpr std::string_view kDeleteHeaderPrefix = "snow.source.delete.";

class TypedDeletes {
 public:
  // Null when `rows`' records are untyped (schema.mode is not typed and key.format is string).
  static std::unique_ptr<TypedDeletes> MakeIfNeeded(const SourceSettings& source,
                                                    const TableSettings& rows);

  // Takes what the row stream published last. FailedPrecondition before it published any
  // (the row stream's watermark is held back until it has, so no deletion is read before).
  Status Sync(const RowWatermark& watermark);

  // The row's UPSERT, as the row stream writes it. InvalidArgument: a value that does not
  // parse as its type (the bad-row policy decides).
  Result<kafka::OutRecord> Row(const boost::json::object& row, const RowKey& key,
                               int64_t extracted_at_ms);

  // Re-encodes `records`, the untyped records of one deletion of `sys_id` (its DELETE, maybe
  // a tombstone, maybe the row restored since): the DELETE in place (see above; `last_row`
  // the row sys_audit_delete kept, or null), the tombstone made again from it (TombstoneFor:
  // its key and headers), and each UPSERT rebuilt from `row_now`. A last row that does not
  // encode leaves the DELETE with the sys_id alone and its reason in
  // `snow.source.delete.last_row_error`.
  Status Retype(std::vector<kafka::OutRecord>& records, std::string_view sys_id,
                const boost::json::object* last_row, const boost::json::object* row_now,
                int64_t extracted_at_ms);

 private:
  TypedDeletes(const SourceSettings& source, const TableSettings& rows,
               std::unique_ptr<TypedTable> table)
      : source_(source), rows_(rows), table_(std::move(table)) {}
  Status RetypeDelete(kafka::OutRecord& record, std::string_view sys_id,
                      const boost::json::object* last_row);

  const SourceSettings& source_;
  const TableSettings& rows_;
  std::unique_ptr<TypedTable> table_;  // a follower: TypedTable::Adopt
};

// The typed records of one audit entry: AuditRecords, re-encoded by `typed`.
Result<std::vector<kafka::OutRecord>> TypedAuditRecords(
    const boost::json::object& audit_row, const RowKey& key, const DeletesStream& stream,
    const SourceSettings& source, int64_t extracted_at_ms, TypedDeletes& typed);

// Reconciliation's records, re-encoded by `typed` when it is given (typed_deletes.h): a row it
// found never emitted (InvalidArgument, logged as a skipped bad row: a value that does not
// parse as its type; reconciliation has no table to stop), and the
// DELETE (and tombstone) of an id it found gone (ReconciledDeleteRecords).
Result<kafka::OutRecord> ReconciledRowRecord(TypedDeletes* typed, const RowWatermark& watermark,
                                             const boost::json::object& row, const RowKey& key,
                                             const TableSettings& table,
                                             const SourceSettings& source, int64_t extracted_at_ms);
Result<std::vector<kafka::OutRecord>> ReconciledDeletes(
    TypedDeletes* typed, const RowWatermark& watermark, const TableSettings& table,
    const SourceSettings& source, const std::string& sys_id, int64_t found_at_ms,
    int64_t extracted_at_ms);

}  // namespace snowcar::source
