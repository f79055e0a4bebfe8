// SPDX-License-Identifier: Apache-2.0
// The schemas of the tables the emulator knows, modelled on a real instance's columns (a
// subset: the fields clients and tests use, with their kinds, choices and defaults).
#include <map>
#include <mutex>
#include <utility>

#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {
namespace {

// Default of fields an instance stamps with the current time on insert.

FieldDef Str(std::string name, std::string def = "") {
  FieldDef f;
  f.name = std::move(name);
  f.default_value = std::move(def);
  return f;
}

FieldDef Int(std::string name, std::string def = "") {
  FieldDef f = Str(std::move(name), std::move(def));
  f.kind = FieldKind::kInteger;
  return f;
}

FieldDef Date(std::string name, std::string def = "") {
  FieldDef f = Str(std::move(name), std::move(def));
  f.kind = FieldKind::kDateTime;
  return f;
}

FieldDef Bool(std::string name, std::string def) {
  FieldDef f = Str(std::move(name), std::move(def));
  f.kind = FieldKind::kBoolean;
  return f;
}

FieldDef Ref(std::string name, std::string table) {
  FieldDef f = Str(std::move(name));
  f.kind = FieldKind::kReference;
  f.reference_table = std::move(table);
  return f;
}

FieldDef Pick(std::string name, std::vector<Choice> choices, std::string def = "") {
  FieldDef f = Str(std::move(name), std::move(def));
  f.kind = FieldKind::kChoice;
  f.choices = std::move(choices);
  f.numeric_choice = !f.choices.empty();
  for (const Choice& c : f.choices) {
    bool digits = !c.value.empty();
    for (size_t i = 0; i < c.value.size(); ++i) {
      const char ch = c.value[i];
      if (!((ch >= '0' && ch <= '9') || (ch == '-' && i == 0 && c.value.size() > 1))) {
        digits = false;
      }
    }
    if (!digits) f.numeric_choice = false;
  }
  return f;
}

std::vector<Choice> PriorityChoices() {
  return {{"1", "1 - Critical"},
          {"2", "2 - High"},
          {"3", "3 - Moderate"},
          {"4", "4 - Low"},
          {"5", "5 - Planning"}};
}

std::vector<Choice> ImpactChoices() {
  return {{"1", "1 - High"}, {"2", "2 - Medium"}, {"3", "3 - Low"}};
}

std::shared_ptr<const TableSchema> Incident() {
  std::vector<FieldDef> f;
  f.push_back(Str("number"));
  f.push_back(Str("short_description"));
  f.push_back(Str("description"));
  f.push_back(Ref("caller_id", "sys_user"));
  f.push_back(Ref("opened_by", "sys_user"));
  f.push_back(Date("opened_at", std::string(kNowDefault)));
  f.push_back(Pick("priority", PriorityChoices(), "5"));
  f.push_back(Pick("impact", ImpactChoices(), "3"));
  f.push_back(Pick("urgency", ImpactChoices(), "3"));
  f.push_back(Pick("state",
                   {{"1", "New"},
                    {"2", "In Progress"},
                    {"3", "On Hold"},
                    {"6", "Resolved"},
                    {"7", "Closed"},
                    {"8", "Canceled"}},
                   "1"));
  f.push_back(Pick("category",
                   {{"inquiry", "Inquiry / Help"},
                    {"software", "Software"},
                    {"hardware", "Hardware"},
                    {"network", "Network"},
                    {"database", "Database"}},
                   "inquiry"));
  f.push_back(Str("subcategory"));
  f.push_back(Ref("assignment_group", "sys_user_group"));
  f.push_back(Ref("assigned_to", "sys_user"));
  f.push_back(Ref("cmdb_ci", "cmdb_ci"));
  f.push_back(Pick("contact_type", {{"email", "Email"},
                                    {"phone", "Phone"},
                                    {"self-service", "Self-service"},
                                    {"walk-in", "Walk-in"}}));
  f.push_back(Bool("active", "true"));
  f.push_back(Int("reassignment_count", "0"));
  f.push_back(Int("reopen_count", "0"));
  f.push_back(Int("calendar_stc"));
  f.push_back(Date("resolved_at"));
  f.push_back(Date("closed_at"));
  f.push_back(
      Pick("close_code", {{"Solved (Work Around)", "Solved (Work Around)"},
                          {"Solved (Permanently)", "Solved (Permanently)"},
                          {"Not Solved (Not Reproducible)", "Not Solved (Not Reproducible)"}}));
  f.push_back(Str("close_notes"));
  f.push_back(Str("correlation_id"));
  f.push_back(Str("comments"));
  f.push_back(Str("work_notes"));
  f.push_back(Pick("severity", ImpactChoices(), "3"));
  f.push_back(Bool("made_sla", "true"));
  f.push_back(Int("escalation", "0"));
  return std::make_shared<TableSchema>("incident", "Incident", std::move(f), true, "number", "INC");
}

std::shared_ptr<const TableSchema> ChangeRequest() {
  std::vector<FieldDef> f;
  f.push_back(Str("number"));
  f.push_back(Str("short_description"));
  f.push_back(Str("description"));
  f.push_back(Pick("type",
                   {{"standard", "Standard"}, {"normal", "Normal"}, {"emergency", "Emergency"}},
                   "normal"));
  f.push_back(Pick("state",
                   {{"-5", "New"},
                    {"-4", "Assess"},
                    {"-3", "Authorize"},
                    {"-2", "Scheduled"},
                    {"-1", "Implement"},
                    {"0", "Review"},
                    {"3", "Closed"},
                    {"4", "Canceled"}},
                   "-5"));
  f.push_back(Pick("phase", {{"requested", "Requested"}, {"approved", "Approved"}}, "requested"));
  f.push_back(Pick("priority", PriorityChoices(), "4"));
  f.push_back(Pick("impact", ImpactChoices(), "3"));
  f.push_back(Pick("risk", {{"2", "High"}, {"3", "Moderate"}, {"4", "Low"}}, "3"));
  f.push_back(Ref("requested_by", "sys_user"));
  f.push_back(Ref("assignment_group", "sys_user_group"));
  f.push_back(Ref("assigned_to", "sys_user"));
  f.push_back(Ref("cmdb_ci", "cmdb_ci"));
  f.push_back(Date("opened_at", std::string(kNowDefault)));
  f.push_back(Date("start_date"));
  f.push_back(Date("end_date"));
  f.push_back(Pick("approval",
                   {{"not requested", "Not Yet Requested"},
                    {"requested", "Requested"},
                    {"approved", "Approved"},
                    {"rejected", "Rejected"}},
                   "not requested"));
  f.push_back(Bool("active", "true"));
  f.push_back(Str("justification"));
  f.push_back(Str("implementation_plan"));
  f.push_back(Str("backout_plan"));
  f.push_back(Str("test_plan"));
  f.push_back(Str("close_code"));
  f.push_back(Str("close_notes"));
  f.push_back(Str("correlation_id"));
  return std::make_shared<TableSchema>("change_request", "Change Request", std::move(f), true,
                                       "number", "CHG");
}

std::shared_ptr<const TableSchema> Problem() {
  std::vector<FieldDef> f;
  f.push_back(Str("number"));
  f.push_back(Str("short_description"));
  f.push_back(Str("description"));
  f.push_back(Pick("state",
                   {{"101", "New"},
                    {"102", "Assess"},
                    {"103", "Root Cause Analysis"},
                    {"104", "Fix in Progress"},
                    {"106", "Resolved"},
                    {"107", "Closed"}},
                   "101"));
  f.push_back(Pick("priority", PriorityChoices(), "5"));
  f.push_back(Pick("impact", ImpactChoices(), "3"));
  f.push_back(Pick("urgency", ImpactChoices(), "3"));
  f.push_back(Ref("assignment_group", "sys_user_group"));
  f.push_back(Ref("assigned_to", "sys_user"));
  f.push_back(Ref("opened_by", "sys_user"));
  f.push_back(Ref("cmdb_ci", "cmdb_ci"));
  f.push_back(Date("opened_at", std::string(kNowDefault)));
  f.push_back(Date("resolved_at"));
  f.push_back(Bool("known_error", "false"));
  f.push_back(Bool("active", "true"));
  f.push_back(Int("related_incidents", "0"));
  f.push_back(Str("cause_notes"));
  f.push_back(Str("fix_notes"));
  f.push_back(Str("correlation_id"));
  return std::make_shared<TableSchema>("problem", "Problem", std::move(f), true, "number", "PRB");
}

std::shared_ptr<const TableSchema> SysUser() {
  std::vector<FieldDef> f;
  f.push_back(Str("user_name"));
  f.push_back(Str("first_name"));
  f.push_back(Str("last_name"));
  f.push_back(Str("name"));
  f.push_back(Str("email"));
  f.push_back(Str("title"));
  f.push_back(Str("department"));
  f.push_back(Pick("time_zone", {{"GMT", "GMT"},
                                 {"Europe/Berlin", "Europe/Berlin"},
                                 {"America/New_York", "America/New_York"},
                                 {"America/Los_Angeles", "America/Los_Angeles"},
                                 {"Asia/Tokyo", "Asia/Tokyo"}}));
  f.push_back(Ref("manager", "sys_user"));
  f.push_back(Str("phone"));
  f.push_back(Str("mobile_phone"));
  f.push_back(Str("employee_number"));
  f.push_back(Date("last_login_time"));
  f.push_back(Pick("notification", {{"1", "Disable"}, {"2", "Enable"}}, "2"));
  f.push_back(Bool("active", "true"));
  f.push_back(Bool("locked_out", "false"));
  f.push_back(Bool("vip", "false"));
  return std::make_shared<TableSchema>("sys_user", "User", std::move(f), false, "name");
}

std::shared_ptr<const TableSchema> SysUserGroup() {
  std::vector<FieldDef> f;
  f.push_back(Str("name"));
  f.push_back(Str("description"));
  f.push_back(Str("email"));
  f.push_back(Ref("manager", "sys_user"));
  f.push_back(Ref("parent", "sys_user_group"));
  f.push_back(Str("type"));
  f.push_back(Bool("active", "true"));
  return std::make_shared<TableSchema>("sys_user_group", "Group", std::move(f), false, "name");
}

std::shared_ptr<const TableSchema> CmdbCi() {
  std::vector<FieldDef> f;
  f.push_back(Str("name"));
  f.push_back(Str("short_description"));
  f.push_back(Str("asset_tag"));
  f.push_back(Str("serial_number"));
  f.push_back(Str("ip_address"));
  f.push_back(Str("fqdn"));
  f.push_back(Str("category"));
  f.push_back(Str("subcategory"));
  f.push_back(Pick("install_status",
                   {{"1", "Installed"},
                    {"2", "On Order"},
                    {"3", "In Maintenance"},
                    {"7", "Retired"},
                    {"100", "Absent"}},
                   "1"));
  f.push_back(Pick("operational_status",
                   {{"1", "Operational"},
                    {"2", "Non-Operational"},
                    {"3", "Repair in Progress"},
                    {"6", "Retired"}},
                   "1"));
  f.push_back(
      Pick("environment",
           {{"production", "Production"}, {"development", "Development"}, {"test", "Test"}}));
  f.push_back(
      Pick("discovery_source", {{"ServiceNow", "ServiceNow"}, {"Manual Entry", "Manual Entry"}}));
  f.push_back(Ref("assigned_to", "sys_user"));
  f.push_back(Ref("support_group", "sys_user_group"));
  f.push_back(Str("manufacturer"));
  f.push_back(Str("model_number"));
  f.push_back(Str("cost"));
  f.push_back(Str("cost_cc", "USD"));
  f.push_back(Date("install_date"));
  f.push_back(Date("last_discovered"));
  f.push_back(Int("fault_count", "0"));
  f.push_back(Bool("monitor", "false"));
  f.push_back(Bool("unverified", "false"));
  f.push_back(Str("comments"));
  return std::make_shared<TableSchema>("cmdb_ci", "Configuration Item", std::move(f), true, "name");
}

// sys_audit: one row per audited change; the source reads its DELETED and RECOVERED rows.
std::shared_ptr<const TableSchema> SysAudit() {
  std::vector<FieldDef> f;
  f.push_back(Str("tablename"));
  f.push_back(Str("fieldname"));
  f.push_back(Str("documentkey"));
  f.push_back(Str("oldvalue"));
  f.push_back(Str("newvalue"));
  f.push_back(Str("user"));
  f.push_back(Str("reason"));
  f.push_back(Int("record_checkpoint", "0"));
  return std::make_shared<TableSchema>("sys_audit", "History", std::move(f), false, "");
}

// sys_audit_delete ("Deleted Records"): a deleted row of an audited table, as XML.
std::shared_ptr<const TableSchema> SysAuditDelete() {
  std::vector<FieldDef> f;
  f.push_back(Str("tablename"));
  f.push_back(Str("documentkey"));
  f.push_back(Str("display_value"));
  f.push_back(Str("payload"));
  return std::make_shared<TableSchema>("sys_audit_delete", "Deleted Records", std::move(f), false,
                                       "display_value");
}

// sys_dictionary: one row per column of every table (element), and one with an empty element
// describing the table itself. On an instance internal_type references sys_glide_object and
// reference references sys_db_object, both by name; their stored values are those names,
// which is what the emulator keeps (as an answer with sysparm_exclude_reference_link=true).
std::shared_ptr<const TableSchema> SysDictionary() {
  std::vector<FieldDef> f;
  f.push_back(Str("name"));
  f.push_back(Str("element"));
  f.push_back(Str("column_label"));
  f.push_back(Str("internal_type"));
  f.push_back(Int("max_length"));
  f.push_back(Str("reference"));
  f.push_back(Bool("active", "true"));
  f.push_back(Bool("mandatory", "false"));
  f.push_back(Bool("read_only", "false"));
  f.push_back(Bool("display", "false"));
  f.push_back(Bool("primary", "false"));
  f.push_back(Str("default_value"));
  f.push_back(Str("attributes"));
  return std::make_shared<TableSchema>("sys_dictionary", "Dictionary Entry", std::move(f), false,
                                       "column_label");
}

// sys_db_object: one row per table; super_class references the parent table's row by sys_id
// (empty for a root table such as task).
std::shared_ptr<const TableSchema> SysDbObject() {
  std::vector<FieldDef> f;
  f.push_back(Str("name"));
  f.push_back(Str("label"));
  f.push_back(Ref("super_class", "sys_db_object"));
  return std::make_shared<TableSchema>("sys_db_object", "Table", std::move(f), false, "label");
}

std::shared_ptr<const TableSchema> Generic(std::string_view table) {
  std::vector<FieldDef> f;
  f.push_back(Str("number"));
  f.push_back(Str("name"));
  f.push_back(Str("short_description"));
  f.push_back(Str("description"));
  f.push_back(Str("state"));
  f.push_back(Bool("active", "true"));
  f.push_back(Str("correlation_id"));
  return std::make_shared<TableSchema>(std::string(table), std::string(table), std::move(f), false,
                                       "name");
}

}  // namespace

std::shared_ptr<const TableSchema> KnownTableSchema(std::string_view table) {
  static const std::map<std::string, std::shared_ptr<const TableSchema>, std::less<>> kKnown = {
      {"incident", Incident()},
      {"change_request", ChangeRequest()},
      {"problem", Problem()},
      {"sys_user", SysUser()},
      {"sys_user_group", SysUserGroup()},
      {"cmdb_ci", CmdbCi()},
      {"sys_audit", SysAudit()},
      {"sys_audit_delete", SysAuditDelete()},
      {"sys_dictionary", SysDictionary()},
      {"sys_db_object", SysDbObject()},
  };
  auto it = kKnown.find(table);
  return it == kKnown.end() ? nullptr : it->second;
}

std::shared_ptr<const TableSchema> SchemaForTable(std::string_view table) {
  if (auto known = KnownTableSchema(table)) return known;
  return Generic(table);
}

}  // namespace snowcar::emulator
