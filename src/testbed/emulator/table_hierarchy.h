// SPDX-License-Identifier: Apache-2.0
// Which emulated tables extend another, and which of their columns the parent defines, as on
// an instance: incident, problem and change_request extend task, which extends nothing, and
// task defines the columns every task has (number, priority, state, active, the sys_
// fields...). The emulator stores each table's rows with all their columns; this only decides
// under which name sys_dictionary lists a column and what sys_db_object.super_class says.
#pragma once

#include <string_view>

namespace snowcar::emulator {

inline constexpr std::string_view kObjectsTable = "sys_db_object";

// The table `table` extends, or "" for a root table.
std::string_view SuperClassOf(std::string_view table);

// The table whose sys_dictionary rows list `column` of `table`: its parent when the parent
// defines the column, else `table` itself.
std::string_view DefiningTable(std::string_view table, std::string_view column);

}  // namespace snowcar::emulator
