// SPDX-License-Identifier: Apache-2.0
#include "table_hierarchy.h"

#include <algorithm>
#include <array>

namespace snowcar::emulator {
namespace {

// The task columns the emulated task tables carry (an instance's task has more). A child's
// own columns (incident's caller_id, category, severity...) are listed under the child.
constexpr std::array<std::string_view, 23> kTaskColumns = {"number",
                                                           "short_description",
                                                           "description",
                                                           "opened_by",
                                                           "opened_at",
                                                           "priority",
                                                           "impact",
                                                           "urgency",
                                                           "state",
                                                           "assignment_group",
                                                           "assigned_to",
                                                           "cmdb_ci",
                                                           "contact_type",
                                                           "active",
                                                           "reassignment_count",
                                                           "closed_at",
                                                           "close_notes",
                                                           "correlation_id",
                                                           "comments",
                                                           "work_notes",
                                                           "approval",
                                                           "escalation",
                                                           "made_sla"};

}  // namespace

std::string_view SuperClassOf(std::string_view table) {
  if (table == "incident" || table == "problem" || table == "change_request") return "task";
  return "";
}

std::string_view DefiningTable(std::string_view table, std::string_view column) {
  const std::string_view parent = SuperClassOf(table);
  if (parent != "task") return table;
  // Every sys_ field of a task table (sys_id, sys_updated_on, sys_domain...) is task's.
  if (column.starts_with("sys_") ||
      std::find(kTaskColumns.begin(), kTaskColumns.end(), column) != kTaskColumns.end()) {
    return parent;
  }
  return table;
}

}  // namespace snowcar::emulator
