// SPDX-License-Identifier: Apache-2.0
// The emulator's own data dictionary: sys_dictionary rows for the columns of its tables, as
// an instance lists them (name, element, internal_type, max_length, reference, ...).
//
// When a client first reads sys_dictionary and no one created that table before, the
// emulator creates it and from then on, before every read, adds a row for each (table,
// column) it does not list yet: a table created later, or a column a generic table learned
// from a write, shows up like a column added on an instance. Rows a client writes stay as
// written (a test can give a column another internal_type by writing its row first), and a
// row a client deletes is not added again (a removed column). A test that creates
// sys_dictionary itself before the first read owns it: the emulator then adds nothing.
//
// Table inheritance (table_hierarchy.h): a column a table inherits from task is listed under
// name=task, once, as an instance lists it. sys_db_object is kept the same way (created at the
// first read when no one created it, a row per table added before each read, with super_class
// holding the parent's sys_id), so a client can walk incident -> task.
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "snowcar/testbed/emulator/table_store.h"

namespace snowcar::emulator {

inline constexpr std::string_view kDictionaryTable = "sys_dictionary";

class DictionarySync {
 public:
  // Called before each read of sys_dictionary. Thread-safe.
  void BeforeRead(TableStore& store);
  // Called before each read of sys_db_object. Thread-safe.
  void BeforeObjectsRead(TableStore& store);

 private:
  std::mutex mu_;
  bool decided_ = false;  // whether the emulator owns sys_dictionary is settled
  bool owned_ = false;
  std::set<std::pair<std::string, std::string>> added_;  // (table, element) ever added
  bool objects_decided_ = false;                         // the same for sys_db_object
  bool objects_owned_ = false;
  std::set<std::string> objects_added_;  // tables ever given a sys_db_object row
};

}  // namespace snowcar::emulator
