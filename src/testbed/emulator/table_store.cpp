// SPDX-License-Identifier: Apache-2.0
// TableStore: tables, write semantics, and the List planner (index range or scan + sort).
#include "snowcar/testbed/emulator/table_store.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "table_store_table.h"

namespace snowcar::emulator {
namespace {

constexpr size_t kMaxReferenceLength = 32;

Status InvalidTable(std::string_view table) {
  return Status::InvalidArgument("Invalid table " + std::string(table.substr(0, 100)));
}

Status NoRecord(std::string_view table, std::string_view sys_id) {
  return Status::NotFound("No Record found: " + std::string(table) + "/" +
                          std::string(sys_id.substr(0, 64)));
}

bool IsCount(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string FormatNumber(std::string_view prefix, int64_t n) {
  std::string digits = std::to_string(n);
  if (digits.size() < 7) digits.insert(0, 7 - digits.size(), '0');
  return std::string(prefix) + digits;
}

}  // namespace

namespace {

// Stores a client value the way the instance would for the field's kind. Returns false when
// the value was not usable as given (it is then stored blank and reported).
bool NormalizeValue(const FieldDef& def, std::string& value) {
  switch (def.kind) {
    case FieldKind::kDateTime:
      if (!value.empty() && !ParseSnowTimestamp(value).ok()) {
        value.clear();
        return false;
      }
      return true;
    case FieldKind::kReference:
      if (value.size() > kMaxReferenceLength) value.resize(kMaxReferenceLength);
      return true;
    default:
      return true;
  }
}

// A request's `value` for field `index` (`name`), stored as NormalizeValue makes it and marked
// given; an unusable value is reported in `result`.
void TakeValue(const FieldDef& def, size_t index, const std::string& name, const std::string& value,
               std::vector<std::string>& values, std::vector<bool>& given, WriteResult& result) {
  values[index] = value;
  given[index] = true;
  if (!NormalizeValue(def, values[index])) result.ignored_fields.push_back(name);
}

}  // namespace

TableStore::TableStore(const Clock& clock, StoreOptions options)
    : clock_(clock), options_(options), tables_(std::make_unique<Tables>()) {}

TableStore::~TableStore() = default;

Status TableStore::CreateTable(std::string_view table) {
  auto found = Find(table, true);
  return found.ok() ? Status::Ok() : found.status();
}

Result<TableStore::Table*> TableStore::Find(std::string_view table, bool create) const {
  {
    std::shared_lock lock(tables_->mu);
    auto it = tables_->by_name.find(table);
    if (it != tables_->by_name.end()) return it->second.get();
  }
  if (!create) return InvalidTable(table);
  if (!IsValidTableName(table)) return InvalidTable(table);
  std::unique_lock lock(tables_->mu);
  auto& slot = tables_->by_name[std::string(table)];
  if (!slot) {
    slot = std::make_unique<Table>();
    slot->schema = SchemaForTable(table);
    if (table == kAuditTable) slot->tablename_field = slot->schema->IndexOf("tablename");
  }
  return slot.get();
}

bool TableStore::TableExists(std::string_view table) const {
  std::shared_lock lock(tables_->mu);
  return tables_->by_name.find(table) != tables_->by_name.end();
}

std::vector<std::string> TableStore::TableNames() const {
  std::shared_lock lock(tables_->mu);
  std::vector<std::string> names;
  for (const auto& [name, t] : tables_->by_name) names.push_back(name);
  return names;
}

std::shared_ptr<const TableSchema> TableStore::Schema(std::string_view table) const {
  auto t = Find(table, false);
  if (!t.ok()) return nullptr;
  std::shared_lock lock((*t)->mu);
  return (*t)->schema;
}

Fields TableStore::ResolveReferences(const TableSchema& schema, const Fields& fields) const {
  Fields out = fields;
  for (auto& [name, value] : out) {
    auto index = schema.IndexOf(name);
    if (!index || value.empty()) continue;
    const FieldDef& def = schema.field(*index);
    if (def.kind != FieldKind::kReference) continue;
    auto target = Find(def.reference_table, false);
    if (!target.ok()) continue;
    // Only one table lock at a time: the caller takes its own table's lock afterwards.
    std::shared_lock lock((*target)->mu);
    const Table& t = **target;
    if (t.position.count(value) != 0) continue;
    const size_t display = t.schema->display_index();
    for (const RowPtr& r : t.rows) {
      if (r && r->Get(display) == value) {
        value = std::string(r->sys_id());
        break;
      }
    }
  }
  return out;
}

Result<WriteResult> TableStore::Insert(std::string_view table, const Fields& given_fields,
                                       const WriteOptions& options) {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, options_.auto_create_tables));
  const Fields fields = ResolveReferences(*Schema(table), given_fields);
  std::unique_lock lock(t->mu);
  WriteResult result;
  std::vector<std::string> values(t->schema->size());
  std::vector<bool> given(t->schema->size(), false);
  for (const auto& [name, value] : fields) {
    auto index = t->PlaceField(name, options_.generic_tables_learn_fields, values, given,
                               &result.ignored_fields);
    if (!index) continue;
    const FieldDef& def = t->schema->field(*index);
    if (*index == TableSchema::kSysId) {
      if (!IsSysId(value)) {
        return Status::InvalidArgument("sys_id '" + value.substr(0, 64) +
                                       "' is not 32 lowercase hexadecimal characters");
      }
      if (t->position.count(value) != 0) {
        return Status::AlreadyExists("a record with sys_id " + value + " already exists in " +
                                     std::string(table));
      }
    } else if (def.system) {
      result.ignored_fields.push_back(name);
      continue;
    }
    TakeValue(def, *index, name, value, values, given, result);
  }
  const TableSchema& schema = *t->schema;
  const std::string ts = FormatSnowTimestamp(clock_.NowSeconds() - options.backdate_seconds);
  for (size_t i = TableSchema::kFirstTableField; i < schema.size(); ++i) {
    if (given[i]) continue;
    const std::string& def = schema.field(i).default_value;
    values[i] = def == kNowDefault ? ts : def;
  }
  if (!given[TableSchema::kSysId]) {
    do {
      values[TableSchema::kSysId] = NewSysId();
    } while (t->position.count(values[TableSchema::kSysId]) != 0);
  }
  values[TableSchema::kSysCreatedOn] = ts;
  values[TableSchema::kSysCreatedBy] = options.user;
  values[TableSchema::kSysUpdatedOn] = ts;
  values[TableSchema::kSysUpdatedBy] = options.user;
  values[TableSchema::kSysModCount] = "0";
  values[TableSchema::kSysClassName] = schema.name();
  if (auto n = schema.number_index()) {
    if (values[*n].empty()) {
      values[*n] = FormatNumber(schema.number_prefix(), t->next_number++);
    } else {
      t->NoteNumber(values[*n]);
    }
  }
  RowPtr row = Row::Make(values);
  t->Append(row);
  result.schema = t->schema;
  result.row = std::move(row);
  return result;
}

Result<WriteResult> TableStore::Update(std::string_view table, std::string_view sys_id,
                                       const Fields& given_fields, const WriteOptions& options) {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, options_.auto_create_tables));
  const Fields fields = ResolveReferences(*Schema(table), given_fields);
  std::unique_lock lock(t->mu);
  auto pos = t->position.find(sys_id);
  if (pos == t->position.end()) return NoRecord(table, sys_id);
  const RowPtr old = t->rows[pos->second];
  WriteResult result;
  std::vector<std::string> values = old->Values();
  values.resize(t->schema->size());
  std::vector<bool> given(values.size(), false);
  for (const auto& [name, value] : fields) {
    auto index = t->PlaceField(name, options_.generic_tables_learn_fields, values, given,
                               &result.ignored_fields);
    if (!index) continue;
    const FieldDef& def = t->schema->field(*index);
    if (def.system) {
      // sys_id cannot change; the other system fields are the store's. A body echoing the
      // row's own sys_id is normal and not worth reporting.
      if (!(*index == TableSchema::kSysId && value == sys_id))
        result.ignored_fields.push_back(name);
      continue;
    }
    TakeValue(def, *index, name, value, values, given, result);
  }
  const TableSchema& schema = *t->schema;
  if (options.replace) {
    for (size_t i = TableSchema::kFirstTableField; i < schema.size(); ++i) {
      if (!given[i] && !(schema.number_index() && *schema.number_index() == i)) {
        const std::string& def = schema.field(i).default_value;
        values[i] = def == kNowDefault ? std::string(old->Get(i)) : def;
      }
    }
  }
  bool changed = false;
  for (size_t i = TableSchema::kFirstTableField; i < values.size(); ++i) {
    if (values[i] != old->Get(i)) {
      changed = true;
      break;
    }
  }
  result.schema = t->schema;
  if (!changed) {
    result.changed = false;
    result.row = old;
    return result;
  }
  int64_t mod_count = 0;
  std::string_view old_count = old->Get(TableSchema::kSysModCount);
  std::from_chars(old_count.data(), old_count.data() + old_count.size(), mod_count);
  values[TableSchema::kSysModCount] = std::to_string(mod_count + 1);
  values[TableSchema::kSysUpdatedOn] =
      FormatSnowTimestamp(clock_.NowSeconds() - options.backdate_seconds);
  values[TableSchema::kSysUpdatedBy] = options.user;
  if (auto n = schema.number_index()) t->NoteNumber(values[*n]);
  RowPtr row = Row::Make(values);
  t->Replace(pos->second, row);
  result.row = std::move(row);
  return result;
}

Status TableStore::Delete(std::string_view table, std::string_view sys_id,
                          const WriteOptions& options) {
  SNOWCAR_ASSIGN_OR_RETURN(RowPtr removed, RemoveRow(table, sys_id));
  // The audit rows are written after the table's lock is released: one table lock at a time.
  return RecordDeletion(table, removed, options.user);
}

Status TableStore::CleanerDelete(std::string_view table, std::string_view sys_id) {
  return RemoveRow(table, sys_id).status();
}

Result<RowPtr> TableStore::RemoveRow(std::string_view table, std::string_view sys_id) {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, options_.auto_create_tables));
  std::unique_lock lock(t->mu);
  auto pos = t->position.find(sys_id);
  if (pos == t->position.end()) return NoRecord(table, sys_id);
  RowPtr removed = t->rows[pos->second];
  t->Remove(pos->second);
  return removed;
}

Result<RowPtr> TableStore::Get(std::string_view table, std::string_view sys_id) const {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, options_.auto_create_tables));
  std::shared_lock lock(t->mu);
  auto pos = t->position.find(sys_id);
  if (pos == t->position.end()) return NoRecord(table, sys_id);
  return t->rows[pos->second];
}

Result<std::vector<RowPtr>> TableStore::Snapshot(std::string_view table) const {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, false));
  std::shared_lock lock(t->mu);
  std::vector<RowPtr> out;
  out.reserve(t->rows.size() - t->deleted);
  for (const RowPtr& r : t->rows) {
    if (r) out.push_back(r);
  }
  return out;
}

size_t TableStore::Count(std::string_view table) const {
  auto t = Find(table, false);
  if (!t.ok()) return 0;
  std::shared_lock lock((*t)->mu);
  return (*t)->position.size();
}

Result<RowPtr> TableStore::RowAt(std::string_view table, size_t index) const {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, false));
  std::shared_lock lock(t->mu);
  if (t->index.size() == 0) return Status::NotFound("table " + std::string(table) + " has no rows");
  return t->index.At(t->index.Seek(index % t->index.size())).row->shared_from_this();
}

std::string TableStore::DisplayOf(std::string_view table, std::string_view sys_id) const {
  // The global domain is not a row an instance lets you see, yet it displays as "global".
  if (sys_id == "global" && table == "sys_user_group") return "global";
  auto t = Find(table, false);
  if (!t.ok()) return {};
  std::shared_lock lock((*t)->mu);
  auto pos = (*t)->position.find(sys_id);
  if (pos == (*t)->position.end()) return {};
  return std::string((*t)->rows[pos->second]->Get((*t)->schema->display_index()));
}

Status TableStore::Load(std::string_view table, const std::vector<Fields>& rows,
                        const WriteOptions& options) {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, true));
  std::unique_lock lock(t->mu);
  const std::string now = FormatSnowTimestamp(clock_.NowSeconds() - options.backdate_seconds);
  std::vector<std::vector<std::string>> built;
  built.reserve(rows.size());
  std::unordered_map<std::string, size_t> batch_ids;
  auto where = [&](size_t i) { return std::string(table) + " row " + std::to_string(i); };
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<std::string> values(t->schema->size());
    std::vector<bool> given(values.size(), false);
    for (const auto& [name, value] : rows[r]) {
      auto index = t->PlaceField(name, true, values, given, nullptr);
      if (!index) continue;  // like an import set: unknown columns of a known table are skipped
      const FieldDef& def = t->schema->field(*index);
      if (def.kind == FieldKind::kDateTime && !value.empty() && !ParseSnowTimestamp(value).ok()) {
        return Status::InvalidArgument(where(r) + ": field " + name + ": " +
                                       ParseSnowTimestamp(value).status().message());
      }
      if (*index == TableSchema::kSysModCount && !IsCount(value)) {
        return Status::InvalidArgument(where(r) + ": sys_mod_count '" + value.substr(0, 32) +
                                       "' is not a non-negative integer");
      }
      if (*index == TableSchema::kSysId && !IsSysId(value)) {
        return Status::InvalidArgument(where(r) + ": sys_id '" + value.substr(0, 64) +
                                       "' is not 32 lowercase hexadecimal characters");
      }
      values[*index] = value;
      given[*index] = true;
    }
    const TableSchema& schema = *t->schema;
    for (size_t i = TableSchema::kFirstTableField; i < values.size(); ++i) {
      if (given[i]) continue;
      const std::string& def = schema.field(i).default_value;
      values[i] = def == kNowDefault ? now : def;
    }
    auto fill = [&](size_t i, const std::string& v) {
      if (!given[i] || values[i].empty()) values[i] = v;
    };
    fill(TableSchema::kSysId, NewSysId());
    fill(TableSchema::kSysCreatedOn, now);
    fill(TableSchema::kSysCreatedBy, options.user);
    fill(TableSchema::kSysUpdatedOn, values[TableSchema::kSysCreatedOn]);
    fill(TableSchema::kSysUpdatedBy, values[TableSchema::kSysCreatedBy]);
    fill(TableSchema::kSysModCount, "0");
    values[TableSchema::kSysClassName] = schema.name();
    const std::string& id = values[TableSchema::kSysId];
    if (t->position.count(id) != 0 || !batch_ids.emplace(id, r).second) {
      return Status::AlreadyExists(where(r) + ": duplicate sys_id " + id);
    }
    built.push_back(std::move(values));
  }
  // Numbers: rows without one get the next, after every number already given.
  const TableSchema& schema = *t->schema;
  if (auto n = schema.number_index()) {
    for (auto& v : built) t->NoteNumber(v[*n]);
    for (auto& v : built) {
      if (v[*n].empty()) v[*n] = FormatNumber(schema.number_prefix(), t->next_number++);
    }
  }
  const bool rebuild = built.size() > 64 && built.size() * 8 > t->position.size();
  for (auto& v : built) {
    RowPtr row = Row::Make(v);
    if (rebuild) {
      t->position.emplace(std::string(row->sys_id()), t->rows.size());
      t->rows.push_back(std::move(row));
    } else {
      t->Append(std::move(row));
    }
  }
  if (rebuild) {
    std::vector<IndexEntry> entries;
    entries.reserve(t->rows.size());
    for (const RowPtr& r : t->rows) {
      if (r) entries.push_back({r->sys_updated_on(), r->sys_id(), r.get()});
    }
    t->index.Rebuild(std::move(entries));
    t->RebuildIdIndex();
    t->RebuildTablenameIndex();
  }
  return Status::Ok();
}

}  // namespace snowcar::emulator
