// SPDX-License-Identifier: Apache-2.0
#include "dictionary_sync.h"

#include <map>

#include "snowcar/common/log.h"
#include "table_hierarchy.h"

namespace snowcar::emulator {
namespace {

// Rows an instance writes for its own dictionary are by `system`.
WriteOptions SystemWrite() {
  WriteOptions o;
  o.user = "system";
  return o;
}

}  // namespace

void DictionarySync::BeforeRead(TableStore& store) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!decided_) {
    decided_ = true;
    owned_ = !store.TableExists(kDictionaryTable);
    if (owned_ && !store.CreateTable(kDictionaryTable).ok()) owned_ = false;
  }
  if (!owned_) return;
  auto schema = store.Schema(kDictionaryTable);
  auto rows = store.Snapshot(kDictionaryTable);
  if (schema == nullptr || !rows.ok()) return;
  const auto name_at = schema->IndexOf("name");
  const auto element_at = schema->IndexOf("element");
  if (!name_at || !element_at) return;
  std::set<std::pair<std::string, std::string>> listed;
  for (const RowPtr& row : *rows) {
    listed.emplace(std::string(row->Get(*name_at)), std::string(row->Get(*element_at)));
  }
  const auto add = [&](const std::string& table, const Fields& fields, const std::string& element) {
    std::pair<std::string, std::string> key{table, element};
    if (listed.count(key) != 0 || added_.count(key) != 0) return;
    added_.insert(key);
    if (auto st = store.Insert(kDictionaryTable, fields, SystemWrite()); !st.ok()) {
      SNOWCAR_LOG(kWarn, "emulator.dictionary_row_failed",
                  {{"table", table}, {"element", element}, {"error", st.status().message()}});
    }
  };
  for (const std::string& table : store.TableNames()) {
    if (table == kDictionaryTable) continue;
    auto ts = store.Schema(table);
    if (ts == nullptr) continue;
    if (const std::string parent(SuperClassOf(table)); !parent.empty()) {
      add(parent,
          {{"name", parent},
           {"element", ""},
           {"internal_type", "collection"},
           {"max_length", "40"}},
          "");
    }
    add(table,
        {{"name", table},
         {"element", ""},
         {"column_label", ts->label()},
         {"internal_type", "collection"},
         {"max_length", "40"}},
        "");
    for (const FieldDef& f : ts->fields()) {
      // An inherited column is the parent's row, added by the first child that has it.
      const std::string owner(DefiningTable(table, f.name));
      Fields row = {{"name", owner},
                    {"element", f.name},
                    {"column_label", f.name},
                    {"internal_type", InternalTypeOf(f)},
                    {"max_length", std::to_string(MaxLengthOf(f))},
                    {"read_only", f.system ? "true" : "false"}};
      if (f.kind == FieldKind::kReference) row.emplace_back("reference", f.reference_table);
      if (f.name == "sys_id") row.emplace_back("primary", "true");
      add(owner, row, f.name);
    }
  }
}

void DictionarySync::BeforeObjectsRead(TableStore& store) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!objects_decided_) {
    objects_decided_ = true;
    objects_owned_ = !store.TableExists(kObjectsTable);
    if (objects_owned_ && !store.CreateTable(kObjectsTable).ok()) objects_owned_ = false;
  }
  if (!objects_owned_) return;
  auto schema = store.Schema(kObjectsTable);
  auto rows = store.Snapshot(kObjectsTable);
  if (schema == nullptr || !rows.ok()) return;
  const auto name_at = schema->IndexOf("name");
  if (!name_at) return;
  std::map<std::string, std::string> sys_id_of;  // name -> sys_id of the rows listed
  for (const RowPtr& row : *rows) {
    sys_id_of.emplace(std::string(row->Get(*name_at)), std::string(row->sys_id()));
  }
  // A parent's row before its children's: their super_class holds its sys_id.
  const auto add = [&](const std::string& table, auto& self) -> void {
    if (sys_id_of.count(table) != 0 || objects_added_.count(table) != 0) return;
    objects_added_.insert(table);
    Fields row = {{"name", table}, {"label", table}};
    if (const std::string parent(SuperClassOf(table)); !parent.empty()) {
      self(parent, self);
      if (auto it = sys_id_of.find(parent); it != sys_id_of.end()) {
        row.emplace_back("super_class", it->second);
      }
    }
    auto written = store.Insert(kObjectsTable, row, SystemWrite());
    if (!written.ok()) {
      SNOWCAR_LOG(kWarn, "emulator.table_object_failed",
                  {{"table", table}, {"error", written.status().message()}});
      return;
    }
    sys_id_of.emplace(table, std::string(written->row->sys_id()));
  };
  for (const std::string& table : store.TableNames()) {
    if (table != kObjectsTable) add(table, add);
  }
}

}  // namespace snowcar::emulator
