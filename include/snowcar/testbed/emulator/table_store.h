// SPDX-License-Identifier: Apache-2.0
// The emulator's tables: thread-safe, in memory, with the write semantics of the Table API.
//
// Readers run in parallel (one std::shared_mutex per table); a write holds its table alone.
// Reads return shared pointers to immutable rows, so rendering happens after the lock is
// released and a page is a consistent snapshot of each row.
//
// Time always comes from the injected Clock, so tests control sys_created_on/sys_updated_on.
//
// Listing is fast for the source poller's keyset queries: each table keeps an ordered index
// on (sys_updated_on, sys_id) with rank counts. When every ^NQ branch of a query is a range
// on that key (sys_updated_on with = < <= > >= BETWEEN, sys_id with = < <= > >= while
// sys_updated_on is pinned by '='), and the order is ORDERBYsys_updated_on^ORDERBYsys_id
// (both ascending or both descending; or ORDERBYsys_id alone when every branch pins
// sys_updated_on to the same T), a page costs O(log n + page) including the total count.
// With other conditions in the mix the index order is kept and the rows of the ranges are
// filtered (the count then walks the ranges). Other orders sort stably (ties keep insertion order,
// as an instance gives no order of its own) the rows that match: those in the index ranges when the
// sys_updated_on bounds leave under a quarter of the table, else every row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/common/time.h"
#include "snowcar/testbed/emulator/query.h"
#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {

struct StoreOptions {
  // Create a table on first use of an unknown name instead of answering "Invalid table".
  bool auto_create_tables = false;
  // Generic (not known) tables learn a new string field when a write names one; known tables
  // ignore unknown fields, as an instance does.
  bool generic_tables_learn_fields = true;
};

struct WriteOptions {
  // sys_created_by / sys_updated_by.
  std::string user = "admin";
  // Late-visible write: sys_updated_on (and sys_created_on for an insert) is stamped this many
  // seconds before now, like a transaction that commits late.
  int64_t backdate_seconds = 0;
  // Update only: fields not given return to their defaults. The real API merges on PATCH and
  // on PUT alike, so a faithful server passes false for both.
  bool replace = false;
};

struct WriteResult {
  std::shared_ptr<const TableSchema> schema;
  RowPtr row;                               // the row as stored after the write
  bool changed = true;                      // false: an update that changed no value
  std::vector<std::string> ignored_fields;  // unknown or read-only fields of the request
};

struct ListRequest {
  EncodedQuery query;
  size_t limit = 10000;  // sysparm_limit
  size_t offset = 0;     // sysparm_offset
  // sysparm_fields: unknown names are dropped; empty = every field.
  std::vector<std::string> fields;
  // sysparm_no_count=true sets this false; the total is then left 0 unless it is free.
  bool count_total = true;
  // ACL stand-in, applied AFTER limit/offset: rows it rejects are removed from the page, so a
  // page can be short or empty while more rows follow. Empty = every row readable.
  std::function<bool(const Row&)> acl;
};

struct ListPage {
  std::shared_ptr<const TableSchema> schema;
  std::vector<RowPtr> rows;           // the page, in order, after the ACL
  std::vector<size_t> field_indices;  // projection to render (schema positions)
  size_t total = 0;                   // rows matching the query, ignoring limit/offset
  size_t acl_removed = 0;             // rows of the page the ACL removed
  std::vector<IgnoredPart> ignored;   // ignored query parts (for the journal)
  bool used_index = false;            // served from the (sys_updated_on, sys_id) index
};

class TableStore final : public DisplayLookup {
 public:
  explicit TableStore(const Clock& clock, StoreOptions options = {});
  ~TableStore() override;
  TableStore(const TableStore&) = delete;
  TableStore& operator=(const TableStore&) = delete;

  // Creates `table` with its known schema or the generic one; OK when it already exists.
  // InvalidArgument for a name that is not a valid table name.
  Status CreateTable(std::string_view table);
  bool TableExists(std::string_view table) const;
  std::vector<std::string> TableNames() const;
  // nullptr when the table does not exist.
  std::shared_ptr<const TableSchema> Schema(std::string_view table) const;

  // Errors: InvalidArgument "Invalid table <name>" for a missing table (an instance answers
  // 400), NotFound for a missing record, InvalidArgument for a given sys_id that is not 32
  // lowercase hex, AlreadyExists for a given sys_id already in the table.
  //
  // POST: a new random 32-hex sys_id unless `fields` gives one; sys_mod_count "0";
  // created/updated on = now (minus backdate), by = options.user; defaults filled in;
  // an auto-number ("INC0010001") when the table numbers rows and none is given. System
  // fields other than sys_id are read-only and reported in ignored_fields. A reference may be
  // given as the target's display value ("caller_id":"Abel Tuter"): it is stored as the
  // matching row's sys_id; a value matching nothing is stored as given, cut to 32 characters.
  Result<WriteResult> Insert(std::string_view table, const Fields& fields,
                             const WriteOptions& options = {});
  // PATCH/PUT: merges `fields`; when a value changed, sys_mod_count+1 and sys_updated_on/by
  // are stamped. An update that changes nothing leaves the row untouched (changed=false), as
  // an instance skips a no-op update.
  Result<WriteResult> Update(std::string_view table, std::string_view sys_id, const Fields& fields,
                             const WriteOptions& options = {});
  // DELETE, as the Table API does it: removes the row and leaves the audit trail an instance
  // leaves (table_store_audit.cpp): a sys_audit row (fieldname DELETED, tablename,
  // documentkey, user = options.user) unless the table is a sys_* table or flagged
  // no_audit_delete, and, for audited tables, a sys_audit_delete row holding the row as XML
  // (`payload`), from which Undelete restores it.
  Status Delete(std::string_view table, std::string_view sys_id, const WriteOptions& options = {});
  // Removes the row the way the Table Cleaner does: no audit trail at all.
  Status CleanerDelete(std::string_view table, std::string_view sys_id);
  // "Undelete" from sys_audit_delete: the row comes back with every value it had, its
  // sys_updated_on included (the harder case for a client: the row reappears in the past),
  // and a sys_audit row with fieldname RECOVERED is written. NotFound when no deleted row of
  // that sys_id can be restored, AlreadyExists when the sys_id is in the table again.
  Status Undelete(std::string_view table, std::string_view sys_id,
                  const WriteOptions& options = {});
  // Audit flags of a table. audited=false: deletions write sys_audit but no sys_audit_delete
  // (tables are audited by default, sys_* tables never). no_audit_delete=true: deletions leave
  // no trace, as with the dictionary attribute of that name.
  void SetDeleteAudit(std::string_view table, bool audited, bool no_audit_delete);
  Result<RowPtr> Get(std::string_view table, std::string_view sys_id) const;

  Result<ListPage> List(std::string_view table, const ListRequest& request) const;
  // Every row in insertion order (test assertions).
  Result<std::vector<RowPtr>> Snapshot(std::string_view table) const;
  // Rows in the table; 0 when it does not exist.
  size_t Count(std::string_view table) const;
  // The row at `index` modulo the row count, in (sys_updated_on, sys_id) order: O(log n), for
  // picking a random row to update. NotFound when the table has no rows.
  Result<RowPtr> RowAt(std::string_view table, size_t index) const;

  // Bulk load for seed files and generated data: system fields are taken as given when
  // present (timestamps must be valid date-times, sys_id 32 lowercase hex characters) and
  // filled in like an insert otherwise. Creates the table when missing. All or nothing.
  Status Load(std::string_view table, const std::vector<Fields>& rows,
              const WriteOptions& options = {});

  // DisplayLookup: the display field's value of a row (name, number, ...), "" if missing.
  std::string DisplayOf(std::string_view table, std::string_view sys_id) const override;

  const Clock& clock() const { return clock_; }

 private:
  struct Table;
  struct Tables;
  Result<Table*> Find(std::string_view table, bool create) const;
  Result<RowPtr> RemoveRow(std::string_view table, std::string_view sys_id);
  // Writes the audit rows of a deletion (table_store_audit.cpp).
  Status RecordDeletion(std::string_view table, const RowPtr& row, const std::string& user);
  // Reference values that are not a sys_id of the target table but equal a target row's
  // display value are replaced by that row's sys_id, as an instance resolves them.
  Fields ResolveReferences(const TableSchema& schema, const Fields& fields) const;

  const Clock& clock_;
  StoreOptions options_;
  std::unique_ptr<Tables> tables_;
};

// The tables deletions are recorded in.
inline constexpr std::string_view kAuditTable = "sys_audit";
inline constexpr std::string_view kAuditDeleteTable = "sys_audit_delete";

// True for 32 lowercase hex characters.
bool IsSysId(std::string_view text);
// A fresh random sys_id (32 lowercase hex).
std::string NewSysId();

}  // namespace snowcar::emulator
