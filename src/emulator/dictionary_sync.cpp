// SPDX-License-Identifier: Apache-2.0
#include "dictionary_sync.h"

#include "snowcar/common/log.h"

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
    add(table,
        {{"name", table},
         {"element", ""},
         {"column_label", ts->label()},
         {"internal_type", "collection"},
         {"max_length", "40"}},
        "");
    for (const FieldDef& f : ts->fields()) {
      Fields row = {{"name", table},
                    {"element", f.name},
                    {"column_label", f.name},
                    {"internal_type", InternalTypeOf(f)},
                    {"max_length", std::to_string(MaxLengthOf(f))},
                    {"read_only", f.system ? "true" : "false"}};
      if (f.kind == FieldKind::kReference) row.emplace_back("reference", f.reference_table);
      if (f.name == "sys_id") row.emplace_back("primary", "true");
      add(table, row, f.name);
    }
  }
}

}  // namespace snowcar::emulator
