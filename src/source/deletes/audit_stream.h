// SPDX-License-Identifier: Apache-2.0
// Deletes from the audit trail (snow.table.<alias>.deletes=audit, docs/semantics.md "Deletes").
//
// A table with deletes=audit gets a second TablePoller, its deletes stream, that reads the
// table's DELETED and RECOVERED entries of sys_audit with the row machinery unchanged: keyset
// cursor on (sys_created_on, sys_id), safety lag on the instance's clock, overlap re-read,
// durable dedup, the cursor committed only after Kafka acknowledged. Its cursor and dedup
// entries live under the alias "<alias>.deletes" (a dot never appears in a configured alias,
// so the key cannot collide with a table's; no state schema change).
//
// What this file adds to that machinery:
//   - the stream's settings (AuditTableSettings): table sys_audit, base query
//     tablename=<name>^fieldnameINDELETED,RECOVERED, timestamp sys_created_on;
//   - the records (AuditRecords): DELETED -> a DELETE record keyed by the deleted row's sys_id
//     (plus a tombstone with snow.source.emit.tombstones=true; then the row as it is now when
//     it may have been restored in the same second and exists: MarkPossibleRestores); RECOVERED ->
//     the row as it is now, re-read by sys_id, as an UPSERT (nothing when it is gone again: a later
//     DELETED entry follows);
//   - the ordering gate (RowWatermark): a DELETE must never overtake the row's last UPSERT.
//
// Why the gate is enough. Both streams produce through one producer, with the same key, so
// the same partition, and Kafka keeps the order of what one producer sends to one partition.
// The row stream publishes W, the HI of its last sweep once every row that sweep read is
// acknowledged (no row in flight, none queued). The deletes stream reads only entries with
// sys_created_on < W - 1. A sweep with HI = W began at instance time >= W + safety lag > D for a
// deletion at second D < W, i.e. after the row was gone (the extra second covers the
// whole-second Date header the client learns the instance's clock from): that sweep and every later
// one cannot read the row any more, and every version read by an earlier sweep was acknowledged
// before W was published. So every UPSERT of the row is in Kafka before its DELETE is even
// read. Under exactly-once the two streams have a producer (a transaction) each; an
// acknowledged UPSERT still stands before a later DELETE in the partition, but its transaction
// may yet abort, leaving a committed DELETE of a version no reader saw. So W is then published
// only once the sweep's transaction committed.
// The price: a deletion waits for the row stream's next finished sweep (one poll
// interval) on top of its own.
#pragma once

#include <atomic>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../typed/typed_snapshot.h"
#include "snowcar/kafka/record.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source {

// The gate between a table's row stream (writer) and its deletes stream (reader).
struct RowWatermark {
  static constexpr int64_t kNone = std::numeric_limits<int64_t>::min();
  // HI (seconds) of the row stream's last sweep whose rows are all acknowledged; kNone
  // until one is.
  std::atomic<int64_t> swept_hi{kNone};

  void Publish(int64_t hi) {
    int64_t seen = swept_hi.load();
    while (hi > seen && !swept_hi.compare_exchange_weak(seen, hi)) {
    }
  }

  // Typed tables: what the row stream writes with (typed_snapshot.h), published before its
  // first record and so before its first HI; the deletes stream and reconciliation write
  // theirs with it. Null for an untyped table, and before the row stream's first page.
  std::atomic<std::shared_ptr<const TypedSnapshot>> typed;
  void PublishTypes(std::shared_ptr<const TypedSnapshot> snapshot) {
    if (typed.load() != snapshot) typed.store(std::move(snapshot));
  }
};

class TypedDeletes;

// What a deletes stream's poller needs besides its own (sys_audit) settings.
struct DeletesStream {
  const TableSettings* rows = nullptr;  // the table whose deletions are read
  TableSettings settings;               // the stream's own: AuditTableSettings(*rows)
  std::shared_ptr<RowWatermark> watermark;
  // A typed table's: re-encodes the records (typed_deletes.h). The deletes stream's strand only.
  std::shared_ptr<TypedDeletes> typed;
};

inline constexpr std::string_view kDeletesAliasSuffix = ".deletes";
inline constexpr std::string_view kAuditDeleted = "DELETED";
inline constexpr std::string_view kAuditRecovered = "RECOVERED";

// The settings the deletes stream of `rows` polls sys_audit with.
TableSettings AuditTableSettings(const TableSettings& rows);

// The server clock the deletes stream may sweep to: `server_now_ms`, held back so the
// sweep's HI (second(now - safety lag)) stays below the row stream's watermark. With no
// watermark yet, a time before every entry (the sweep reads nothing and waits).
int64_t DeletesSweepClock(int64_t server_now_ms, const RowWatermark& watermark,
                          int64_t safety_lag_seconds);

// True when the audit row is a RECOVERED entry (its row must be re-read before producing).
bool IsRecoveredEntry(const boost::json::object& audit_row);

// sys_audit stamps whole seconds and the keyset reads one second's entries in sys_id order,
// which is random: a row deleted and restored within one second may come as RECOVERED, then
// DELETED. Which came last only the row's current state tells, so such a DELETED entry is
// marked (kMayBeRestoredMember) to have its row re-read with the RECOVERED ones; a DELETE
// then becomes DELETE followed by the row if the row exists now. Marked: a DELETED entry
// after a RECOVERED entry of the same row and second in the page, and every DELETED entry of
// `continued_second` (the second a drain page continues, whose earlier entries came in the
// previous page), when given.
inline constexpr std::string_view kMayBeRestoredMember = "__snowcar_may_be_restored";
void MarkPossibleRestores(boost::json::array& audit_rows, std::optional<int64_t> continued_second);

// The request that re-reads the rows of these RECOVERED entries (and of the DELETED entries
// MarkPossibleRestores marked) (sys_idIN...), with the table's own fields and display
// settings. Empty when `audit_rows` holds none.
std::string RecoveredRowsTarget(const TableSettings& rows, const boost::json::array& audit_rows);

// Puts each re-read row (from the answer to RecoveredRowsTarget) into its RECOVERED (and
// marked DELETED) entries under kRecoveredRowMember.
inline constexpr std::string_view kRecoveredRowMember = "__snowcar_row";
void AttachRecoveredRows(const TableSettings& rows, const boost::json::array& fetched,
                         boost::json::array& audit_rows);

// With deletes.last.row: the request that reads the sys_audit_delete rows (documentkey,
// payload, sys_created_on) of these DELETED entries, newest first. Empty when the table does
// not ask for the last row or `audit_rows` holds no deletion.
std::string DeletedRowsTarget(const TableSettings& rows, const boost::json::array& audit_rows);

// Puts into each DELETED entry the row sys_audit_delete kept of it (the newest payload not
// written after the entry, parsed: deleted_row_payload.h) under kLastRowMember, or, when its
// payload does not parse, the reason under kLastRowErrorMember. An entry without a payload (a
// table that is not audited) gets neither.
inline constexpr std::string_view kLastRowMember = "__snowcar_last_row";
inline constexpr std::string_view kLastRowErrorMember = "__snowcar_last_row_error";
void AttachDeletedRows(const TableSettings& rows, const boost::json::array& fetched,
                       boost::json::array& audit_rows);

// The tombstone that follows a DELETE record (snow.source.emit.tombstones): same topic, key,
// timestamp and headers, a null value, and snow.source.operation=TOMBSTONE rather than DELETE.
// Why not DELETE: the pair must read as ONE deletion. A consumer that applies the operation
// header (a Connect-style sink, a script) would delete twice; with no operation header at all
// snowcar's own sink, which infers DELETE from a null value, would apply it as a command. Any
// snow.source.operation header makes snowcar's sink refuse the record as a replayed source
// topic, so neither record of the pair is ever applied there (docs/source.md, Deletes).
inline constexpr std::string_view kTombstoneOperation = "TOMBSTONE";
kafka::OutRecord TombstoneFor(const kafka::OutRecord& delete_record);

class EmittedIds;  // reconciler.h

// deletes=audit+reconcile: takes out of one entry's records (AuditRecords) a DELETE and its
// tombstone when a sweep produced a DELETE of the row first (EmittedIds::ClaimAuditDelete;
// `deleted_s` is the entry's second), else claims the deletion so the sweep drops its copy.
// A row in the records (a restore) releases the claim: the row's next deletion is a new one.
void DropDeletionTheSweepEmitted(std::vector<kafka::OutRecord>& records, int64_t deleted_s,
                                 EmittedIds& emitted);

// The records one audit entry becomes, in order (see the top of this file). `key` is the
// entry's own key (ts = its sys_created_on).
std::vector<kafka::OutRecord> AuditRecords(const boost::json::object& audit_row, const RowKey& key,
                                           const DeletesStream& stream,
                                           const SourceSettings& source, int64_t extracted_at_ms);

}  // namespace snowcar::source
