// SPDX-License-Identifier: Apache-2.0
#include "cli/state_cli_render.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <vector>

namespace snowcar::cli::internal {
namespace {

namespace json = boost::json;

// A field as text: strings bare, everything else as JSON; "" when absent.
std::string Field(const json::value& v, std::string_view key) {
  if (!v.is_object()) return {};
  const json::value* f = v.as_object().if_contains(key);
  if (f == nullptr || f->is_null()) return {};
  if (f->is_string()) return std::string(f->as_string());
  return json::serialize(*f);
}

// Columns padded to the widest cell; the last column is not padded.
void PrintTable(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    out << line << "\n";
  }
}

void PrintCursors(const json::value& body, std::ostream& out) {
  const json::value* list = body.as_object().if_contains("cursors");
  if (list == nullptr || !list->is_array() || list->as_array().empty()) {
    out << "no cursors stored\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {
      {"TABLE", "PHASE", "TS (UTC)", "SYS_ID", "TIMESTAMP_FIELD", "INSTANCE", "UPDATED_AT"}};
  for (const auto& c : list->as_array()) {
    rows.push_back({Field(c, "table"), Field(c, "phase"), Field(c, "ts_utc"), Field(c, "sys_id"),
                    Field(c, "timestamp_field"), Field(c, "instance"), Field(c, "updated_at")});
  }
  PrintTable(rows, out);
}

void PrintOrigins(const json::value& body, std::ostream& out) {
  out << "table: " << Field(body, "table") << "\n"
      << "sys_id: " << Field(body, "sys_id") << "\n";
  const json::value* list = body.as_object().if_contains("versions");
  if (list == nullptr || !list->is_array() || list->as_array().empty()) {
    out << "versions: none written by the sink (or no longer remembered)\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"SYS_MOD_COUNT", "SYS_UPDATED_ON", "OPERATION",
                                                 "TOPIC", "PARTITION", "OFFSET", "CORRELATION",
                                                 "REQUEST_ID", "RECORDED_AT"}};
  for (const auto& v : list->as_array()) {
    rows.push_back({Field(v, "sys_mod_count"), Field(v, "sys_updated_on"), Field(v, "operation"),
                    Field(v, "topic"), Field(v, "partition"), Field(v, "offset"),
                    Field(v, "correlation"), Field(v, "request_id"), Field(v, "recorded_at")});
  }
  PrintTable(rows, out);
}

// `snowcar state deletes`: one line per table that captures deletes (the "deletions" member
// of the source's table view).
void PrintDeletions(const json::value& body, std::ostream& out) {
  std::vector<json::value> tables;
  if (const json::value* list = body.as_object().if_contains("tables");
      list != nullptr && list->is_array()) {
    tables.assign(list->as_array().begin(), list->as_array().end());
  } else {
    tables.push_back(body);
  }
  std::vector<std::vector<std::string>> rows = {{"TABLE", "MODE", "BY_AUDIT", "BY_RECONCILIATION",
                                                 "SWEEPS", "LAST_SWEEP_START", "DURATION_MS",
                                                 "COMPARED", "DIFFERENCES", "SWEEPING_AFTER"}};
  for (const json::value& t : tables) {
    const json::value* d = t.is_object() ? t.as_object().if_contains("deletions") : nullptr;
    if (d == nullptr || !d->is_object()) continue;
    const json::value* r = d->as_object().if_contains("reconciliation");
    json::value last;
    json::value current;
    if (r != nullptr && r->is_object()) {
      if (const json::value* l = r->as_object().if_contains("last_sweep")) last = *l;
      if (const json::value* c = r->as_object().if_contains("current_sweep")) current = *c;
    }
    rows.push_back({Field(t, "alias"), Field(*d, "mode"), Field(*d, "emitted_by_audit"),
                    Field(*d, "emitted_by_reconciliation"),
                    r != nullptr && r->is_object() ? Field(*r, "sweeps") : "-",
                    Field(last, "started_at"), Field(last, "duration_ms"),
                    Field(last, "rows_compared"), Field(last, "differences"),
                    Field(current, "after_sys_id")});
  }
  if (rows.size() == 1) {
    out << "no table captures deletes (snow.table.<alias>.deletes=none)\n";
    return;
  }
  PrintTable(rows, out);
}

}  // namespace

void RenderHuman(const std::string& command, const json::value& body, std::ostream& out) {
  if (!body.is_object()) {
    out << json::serialize(body) << "\n";
    return;
  }
  const json::object& o = body.as_object();
  if (command == "health") {
    out << "status: " << Field(body, "status") << "\n";
    const json::value* comps = o.if_contains("components");
    if (comps != nullptr && comps->is_object() && !comps->as_object().empty()) {
      std::vector<std::vector<std::string>> rows = {{"COMPONENT", "OK", "DETAIL"}};
      for (const auto& [name, c] : comps->as_object()) {
        rows.push_back(
            {std::string(name), Field(c, "ok") == "true" ? "yes" : "no", Field(c, "detail")});
      }
      PrintTable(rows, out);
    }
  } else if (command == "ready") {
    out << "ready\n";
  } else if (command == "help") {
    const json::value* routes = o.if_contains("routes");
    std::vector<std::vector<std::string>> rows;
    if (routes != nullptr && routes->is_array()) {
      for (const auto& r : routes->as_array()) {
        rows.push_back({Field(r, "method"), Field(r, "path"), Field(r, "help")});
      }
    }
    PrintTable(rows, out);
  } else if (command == "cursors") {
    PrintCursors(body, out);
  } else if (command == "deletes") {
    PrintDeletions(body, out);
  } else if (command == "dedup") {
    out << "table: " << Field(body, "table") << "\n"
        << "sys_id: " << Field(body, "sys_id") << "\n"
        << "table entries: " << Field(body, "table_entry_count") << "\n";
    const json::value* entries = o.if_contains("entries");
    if (entries == nullptr || !entries->is_array() || entries->as_array().empty()) {
      out << "versions: none (this sys_id was not emitted within the window)\n";
    } else {
      std::vector<std::vector<std::string>> rows = {{"TS (UTC)", "TS", "SYS_MOD_COUNT"}};
      for (const auto& e : entries->as_array()) {
        rows.push_back({Field(e, "ts_utc"), Field(e, "ts"), Field(e, "sys_mod_count")});
      }
      PrintTable(rows, out);
    }
  } else if (command == "correlation") {
    out << "table: " << Field(body, "table") << "\n"
        << "field: " << Field(body, "field") << "\n"
        << "value: " << Field(body, "value") << "\n"
        << "sys_id: " << Field(body, "sys_id") << "\n";
  } else if (command == "origin") {
    PrintOrigins(body, out);
  } else if (command == "reset-cursor" && body.is_object() &&
             body.as_object().contains("rewound")) {
    // Say exactly what comes again: the kept entries only reach back one overlap window.
    const std::string to = Field(body, "to_utc");
    const std::string oldest = Field(body, "dedup_oldest_utc");
    out << "rewound table " << Field(body, "table") << " to " << to << " (UTC), phase backfill\n";
    if (oldest.empty() || oldest == "null") {
      out << "no dedup entries were kept: every row version updated since " << to
          << " (UTC) is emitted again\n";
    } else if (oldest <= to) {
      out << "kept " << Field(body, "dedup_entries_kept") << " dedup entries, reaching back to "
          << oldest << " (UTC): the versions they remember are not emitted again, every other "
          << "version updated since " << to << " (UTC) is\n";
    } else {
      out << "row versions updated from " << to << " to " << oldest
          << " (UTC) are emitted again, even those sent before; the "
          << Field(body, "dedup_entries_kept") << " dedup entries kept cover only versions from "
          << oldest << " (UTC) on (the last overlap window), and those are not emitted again\n";
    }
    const auto* cursors = body.as_object().if_contains("cursors");
    if (cursors != nullptr && cursors->is_array()) {
      std::vector<std::vector<std::string>> rows = {
          {"WAS (UTC)", "WAS SYS_ID", "TIMESTAMP_FIELD", "INSTANCE", "FINGERPRINT"}};
      for (const auto& c : cursors->as_array()) {
        rows.push_back({Field(c, "from_utc"), Field(c, "from_sys_id"), Field(c, "timestamp_field"),
                        Field(c, "instance"), Field(c, "query_fingerprint")});
      }
      PrintTable(rows, out);
    }
  } else if (command == "reset" || command == "reset-cursor") {
    out << "reset table " << Field(body, "table") << ": removed " << Field(body, "cursors_removed")
        << " cursor(s) and " << Field(body, "dedup_entries_removed") << " dedup entries\n";
  } else {
    out << json::serialize(body) << "\n";
  }
}

}  // namespace snowcar::cli::internal
