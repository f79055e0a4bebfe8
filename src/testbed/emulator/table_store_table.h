// SPDX-License-Identifier: Apache-2.0
// The inside of one TableStore table (private to src/testbed/emulator). Guarded by `mu`.
#pragma once

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "snowcar/testbed/emulator/table_store.h"
#include "table_store_index.h"

namespace snowcar::emulator {

// The digits after a table's number prefix ("INC0010042" → 10042), or -1.
inline int64_t NumberSuffix(std::string_view number, std::string_view prefix) {
  if (number.size() <= prefix.size() || number.substr(0, prefix.size()) != prefix) return -1;
  int64_t n = 0;
  std::string_view digits = number.substr(prefix.size());
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) return -1;
  return n;
}

struct TableStore::Table {
  mutable std::shared_mutex mu;
  std::shared_ptr<const TableSchema> schema;
  std::vector<RowPtr> rows;  // insertion order; nullptr marks a deleted row
  // sys_id → index in rows
  std::unordered_map<std::string, size_t, StringHash, std::equal_to<>> position;
  size_t deleted = 0;
  KeysetIndex index;
  // sys_id order (every entry's ts is empty): an instance's primary key. Serves the queries
  // ordered by sys_id alone, as a reconciliation sweep's `sys_id>X^ORDERBYsys_id`, from a
  // rank rather than a scan and sort of the whole table.
  KeysetIndex by_id;
  int64_t next_number = 10001;
  // sys_audit only: one (sys_created_on, sys_id) index per tablename, so a query for one
  // table's audit entries reads that table's part alone, as an instance's composite index on
  // (tablename, ..., sys_created_on) would (docs/testbed.md, "sys_audit").
  std::optional<size_t> tablename_field;
  std::map<std::string, KeysetIndex, std::less<>> by_tablename;

  // REQUIRES: exclusive lock.
  void Append(RowPtr row) {
    index.Insert({row->sys_updated_on(), row->sys_id(), row.get()});
    by_id.Insert({{}, row->sys_id(), row.get()});
    IndexTablename(*row);
    position.emplace(std::string(row->sys_id()), rows.size());
    rows.push_back(std::move(row));
  }

  void Replace(size_t pos, RowPtr row) {
    const RowPtr& old = rows[pos];
    index.Erase(old->sys_updated_on(), old->sys_id());
    by_id.Erase({}, old->sys_id());
    UnindexTablename(*old);
    index.Insert({row->sys_updated_on(), row->sys_id(), row.get()});
    by_id.Insert({{}, row->sys_id(), row.get()});
    IndexTablename(*row);
    rows[pos] = std::move(row);
  }

  void Remove(size_t pos) {
    const RowPtr& old = rows[pos];
    index.Erase(old->sys_updated_on(), old->sys_id());
    by_id.Erase({}, old->sys_id());
    UnindexTablename(*old);
    position.erase(position.find(old->sys_id()));
    rows[pos] = nullptr;
    ++deleted;
    if (deleted > 1024 && deleted * 2 > rows.size()) Compact();
  }

  void Compact() {
    std::vector<RowPtr> live;
    live.reserve(rows.size() - deleted);
    for (RowPtr& r : rows) {
      if (r) live.push_back(std::move(r));
    }
    rows = std::move(live);
    position.clear();
    for (size_t i = 0; i < rows.size(); ++i) position.emplace(std::string(rows[i]->sys_id()), i);
    deleted = 0;
  }

  void IndexTablename(const Row& row) {
    if (!tablename_field) return;
    auto it = by_tablename.find(row.Get(*tablename_field));
    if (it == by_tablename.end()) {
      it = by_tablename.emplace(std::string(row.Get(*tablename_field)), KeysetIndex()).first;
    }
    it->second.Insert({row.Get(TableSchema::kSysCreatedOn), row.sys_id(), &row});
  }

  void UnindexTablename(const Row& row) {
    if (!tablename_field) return;
    auto it = by_tablename.find(row.Get(*tablename_field));
    if (it != by_tablename.end())
      it->second.Erase(row.Get(TableSchema::kSysCreatedOn), row.sys_id());
  }

  // After a bulk load that rebuilt `index`.
  void RebuildIdIndex() {
    std::vector<IndexEntry> entries;
    entries.reserve(rows.size());
    for (const RowPtr& r : rows) {
      if (r) entries.push_back({{}, r->sys_id(), r.get()});
    }
    by_id.Rebuild(std::move(entries));
  }

  // After a bulk load that rebuilt `index`.
  void RebuildTablenameIndex() {
    if (!tablename_field) return;
    by_tablename.clear();
    for (const RowPtr& r : rows) {
      if (r) IndexTablename(*r);
    }
  }

  void NoteNumber(std::string_view number) {
    if (schema->number_prefix().empty()) return;
    int64_t n = NumberSuffix(number, schema->number_prefix());
    if (n >= next_number) next_number = n + 1;
  }

  // FieldFor, with `given` grown along with `values`; a name without a field is added to
  // `ignored`, when there is one.
  std::optional<size_t> PlaceField(std::string_view name, bool learn,
                                   std::vector<std::string>& values, std::vector<bool>& given,
                                   std::vector<std::string>* ignored) {
    auto index = FieldFor(name, learn, values);
    given.resize(values.size(), false);
    if (!index && ignored != nullptr) ignored->emplace_back(name);
    return index;
  }

  // Finds `name` in the schema, learning it on a generic table when allowed.
  std::optional<size_t> FieldFor(std::string_view name, bool learn,
                                 std::vector<std::string>& values) {
    if (auto i = schema->IndexOf(name)) return i;
    if (!learn || KnownTableSchema(schema->name()) != nullptr) return std::nullopt;
    bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!valid) return std::nullopt;
    schema = schema->WithField(std::string(name));
    values.resize(schema->size());
    return schema->size() - 1;
  }
};

struct TableStore::Tables {
  mutable std::shared_mutex mu;
  std::map<std::string, std::unique_ptr<Table>, std::less<>> by_name;
  // What deletions leave behind (table_store_audit.cpp), guarded by `mu`.
  std::set<std::string, std::less<>> not_audited;      // no sys_audit_delete row
  std::set<std::string, std::less<>> no_audit_delete;  // no audit trail at all
  // (table, sys_id) -> the row as deleted, while its sys_audit_delete row can restore it.
  std::map<std::pair<std::string, std::string>, RowPtr> deleted_rows;
};

}  // namespace snowcar::emulator
