// SPDX-License-Identifier: Apache-2.0
// What a table's snapshot carries for its deletion capture (table_snapshot.h): the audit
// stream's cursor and dedup entries (alias "<alias>.deletes") and the reconciliation's sweep
// state, with the manifest of the id set's copy on the changelog. The id set itself travels in
// chunk records of its own (idset_changelog.h): it grows with the table, 16 bytes a row.
#include "../deletes/audit_stream.h"
#include "snowcar/source/rows/keyset_query.h"
#include "table_snapshot.h"

namespace snowcar::source {

Status CaptureDeletesState(state::StateStore& store, const SourceSettings& source,
                           const TableSettings& table, TableSnapshot& snapshot) {
  if (ReadsAudit(table.deletes)) {
    const state::CursorIdentity identity = IdentityFor(source, AuditTableSettings(table));
    SNOWCAR_ASSIGN_OR_RETURN(std::optional<state::Cursor> cursor, store.LoadCursor(identity));
    if (cursor.has_value()) {
      StreamSnapshot stream;
      stream.identity = identity;
      stream.cursor = *cursor;
      SNOWCAR_ASSIGN_OR_RETURN(stream.dedup, store.DedupEntries(identity));
      snapshot.deletes = std::move(stream);
    }
  }
  if (Reconciles(table.deletes)) {
    SNOWCAR_ASSIGN_OR_RETURN(snapshot.sweep, store.GetSweepState(source.instance, table.alias));
    SNOWCAR_ASSIGN_OR_RETURN(snapshot.idset, store.GetIdSetManifest(source.instance, table.alias));
  }
  return Status::Ok();
}

Status ApplyDeletesState(state::StateStore& store, const SourceSettings& source,
                         const TableSettings& table, const TableSnapshot& snapshot,
                         const state::DedupPolicy& policy) {
  if (snapshot.deletes && ReadsAudit(table.deletes)) {
    TableSnapshot stream;
    stream.identity = snapshot.deletes->identity;
    stream.cursor = snapshot.deletes->cursor;
    stream.dedup = snapshot.deletes->dedup;
    SNOWCAR_RETURN_IF_ERROR(
        ApplySnapshot(store, stream, IdentityFor(source, AuditTableSettings(table)), policy)
            .status());
  }
  if (snapshot.sweep && Reconciles(table.deletes)) {
    SNOWCAR_RETURN_IF_ERROR(store.PutSweepState(source.instance, table.alias, *snapshot.sweep));
  }
  return Status::Ok();
}

}  // namespace snowcar::source
