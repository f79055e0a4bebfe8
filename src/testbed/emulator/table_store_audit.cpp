// SPDX-License-Identifier: Apache-2.0
// The audit trail of deletions: what an instance writes to sys_audit and sys_audit_delete
// when a row is deleted, and the undelete that restores a row from sys_audit_delete.
//
// What a real instance records (docs/testbed.md, "Deletions and the audit trail"):
//   - every deletion writes a sys_audit row: fieldname DELETED, tablename, documentkey (the
//     deleted row's sys_id), oldvalue/newvalue DELETED, user, sys_created_on; also for tables
//     that are not audited. An undelete writes fieldname RECOVERED.
//   - audited tables also keep the row itself in sys_audit_delete (tablename, documentkey,
//     payload: the row as XML), which "Undelete" restores from.
//   - sys_* tables and tables flagged no_audit_delete leave no trace, nor does the Table
//     Cleaner (CleanerDelete).
#include <mutex>
#include <shared_mutex>

#include "snowcar/testbed/emulator/table_store.h"
#include "table_store_table.h"

namespace snowcar::emulator {
namespace {

constexpr std::string_view kDeleted = "DELETED";
constexpr std::string_view kRecovered = "RECOVERED";

void AppendXmlEscaped(std::string_view text, std::string& out) {
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
}

// The row as an instance's XML export of one record, the shape sys_audit_delete.payload has.
std::string PayloadXml(const TableSchema& schema, const Row& row) {
  std::string xml = R"(<?xml version="1.0" encoding="UTF-8"?><record_update table=")";
  AppendXmlEscaped(schema.name(), xml);
  xml += "\"><";
  xml += schema.name();
  xml += " action=\"DELETE\">";
  for (size_t i = 0; i < schema.size(); ++i) {
    const std::string& name = schema.field(i).name;
    xml += '<' + name + '>';
    AppendXmlEscaped(row.Get(i), xml);
    xml += "</" + name + '>';
  }
  xml += "</" + schema.name() + "></record_update>";
  return xml;
}

// sys_* tables are not audited by default, and the audit tables never audit themselves.
bool SystemTable(std::string_view table) { return table.starts_with("sys_"); }

}  // namespace

void TableStore::SetDeleteAudit(std::string_view table, bool audited, bool no_audit_delete) {
  std::unique_lock lock(tables_->mu);
  if (audited) {
    if (auto it = tables_->not_audited.find(table); it != tables_->not_audited.end()) {
      tables_->not_audited.erase(it);
    }
  } else {
    tables_->not_audited.emplace(table);
  }
  if (no_audit_delete) {
    tables_->no_audit_delete.emplace(table);
  } else if (auto it = tables_->no_audit_delete.find(table); it != tables_->no_audit_delete.end()) {
    tables_->no_audit_delete.erase(it);
  }
}

Status TableStore::RecordDeletion(std::string_view table, const RowPtr& row,
                                  const std::string& user) {
  if (SystemTable(table)) return Status::Ok();
  bool audited = false;
  {
    std::shared_lock lock(tables_->mu);
    if (tables_->no_audit_delete.find(table) != tables_->no_audit_delete.end()) {
      return Status::Ok();
    }
    audited = tables_->not_audited.find(table) == tables_->not_audited.end();
  }
  const std::string sys_id(row->sys_id());
  WriteOptions by_user;
  by_user.user = user;
  SNOWCAR_RETURN_IF_ERROR(CreateTable(kAuditTable));
  SNOWCAR_RETURN_IF_ERROR(Insert(kAuditTable,
                                 {{"tablename", std::string(table)},
                                  {"fieldname", std::string(kDeleted)},
                                  {"documentkey", sys_id},
                                  {"oldvalue", std::string(kDeleted)},
                                  {"newvalue", std::string(kDeleted)},
                                  {"user", user},
                                  {"reason", ""}},
                                 by_user)
                              .status());
  if (!audited) return Status::Ok();
  auto schema = Schema(table);
  if (schema == nullptr) return Status::Ok();
  SNOWCAR_RETURN_IF_ERROR(CreateTable(kAuditDeleteTable));
  SNOWCAR_RETURN_IF_ERROR(Insert(kAuditDeleteTable,
                                 {{"tablename", std::string(table)},
                                  {"documentkey", sys_id},
                                  {"display_value", std::string(row->Get(schema->display_index()))},
                                  {"payload", PayloadXml(*schema, *row)}},
                                 by_user)
                              .status());
  std::unique_lock lock(tables_->mu);
  tables_->deleted_rows[{std::string(table), sys_id}] = row;
  return Status::Ok();
}

Status TableStore::Undelete(std::string_view table, std::string_view sys_id,
                            const WriteOptions& options) {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, false));
  RowPtr row;
  {
    std::unique_lock lock(tables_->mu);
    auto it = tables_->deleted_rows.find({std::string(table), std::string(sys_id)});
    if (it == tables_->deleted_rows.end()) {
      return Status::NotFound("no deleted record " + std::string(table) + "/" +
                              std::string(sys_id.substr(0, 64)) +
                              " in sys_audit_delete to restore (only audited tables keep one)");
    }
    row = it->second;
  }
  {
    std::unique_lock lock(t->mu);
    if (t->position.count(sys_id) != 0) {
      return Status::AlreadyExists("a record with sys_id " + std::string(sys_id) +
                                   " already exists in " + std::string(table));
    }
    t->Append(row);
  }
  {
    std::unique_lock lock(tables_->mu);
    tables_->deleted_rows.erase({std::string(table), std::string(sys_id)});
  }
  return Insert(kAuditTable,
                {{"tablename", std::string(table)},
                 {"fieldname", std::string(kRecovered)},
                 {"documentkey", std::string(sys_id)},
                 {"oldvalue", std::string(kDeleted)},
                 {"newvalue", std::string(kRecovered)},
                 {"user", options.user},
                 {"reason", ""}},
                options)
      .status();
}

}  // namespace snowcar::emulator
