// SPDX-License-Identifier: Apache-2.0
#include "support/scaleout_checks.h"

#include <boost/json.hpp>
#include <sstream>

namespace snowcar::testsupport {
namespace {

std::optional<boost::json::object> ParseObject(const std::string& text) {
  boost::system::error_code ec;
  auto v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

}  // namespace

void CollectTableHolds(const std::string& replica, const std::string& log, int64_t end_ms,
                       TableHolds& holds) {
  std::map<std::string, int64_t> open;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("source.group.table_") == std::string::npos) continue;
    auto o = ParseObject(line);
    if (!o) continue;
    const auto* event = o->if_contains("event");
    const auto* table = o->if_contains("table");
    const auto* at = o->if_contains("at_ms");
    if (event == nullptr || !event->is_string() || table == nullptr || !table->is_string() ||
        at == nullptr || !at->is_int64()) {
      continue;
    }
    const std::string name(table->as_string());
    if (event->as_string() == "source.group.table_acquired") {
      open[name] = at->as_int64();
    } else if (event->as_string() == "source.group.table_released" && open.contains(name)) {
      holds[name].push_back({replica, open[name], at->as_int64()});
      open.erase(name);
    }
  }
  for (const auto& [table, from] : open) holds[table].push_back({replica, from, end_ms});
}

std::vector<std::string> OverlappingHolds(const TableHolds& holds) {
  std::vector<std::string> out;
  for (const auto& [table, list] : holds) {
    for (size_t i = 0; i < list.size(); ++i) {
      for (size_t j = i + 1; j < list.size(); ++j) {
        const TableHold& a = list[i];
        const TableHold& b = list[j];
        if (a.replica == b.replica) continue;
        if (a.from_ms < b.to_ms && b.from_ms < a.to_ms) {
          out.push_back(table + " held by " + a.replica + " [" + std::to_string(a.from_ms) + "," +
                        std::to_string(a.to_ms) + ") and " + b.replica + " [" +
                        std::to_string(b.from_ms) + "," + std::to_string(b.to_ms) + ")");
        }
      }
    }
  }
  return out;
}

std::optional<std::set<std::string>> OwnedTables(const std::string& ownership_body) {
  auto o = ParseObject(ownership_body);
  if (!o) return std::nullopt;
  const auto* owned = o->if_contains("owned");
  if (owned == nullptr || !owned->is_array()) return std::nullopt;
  std::set<std::string> out;
  for (const auto& t : owned->as_array()) {
    if (!t.is_object()) continue;
    const auto* table = t.as_object().if_contains("table");
    if (table != nullptr && table->is_string()) out.insert(std::string(table->as_string()));
  }
  return out;
}

bool TablesPartitioned(const std::vector<std::set<std::string>>& owned, size_t tables,
                       size_t min_each) {
  std::multiset<std::string> all;
  for (const auto& set : owned) {
    if (set.size() < min_each) return false;
    all.insert(set.begin(), set.end());
  }
  return all.size() == tables && std::set<std::string>(all.begin(), all.end()).size() == tables;
}

int SinkLanes(const std::string& partitions_body) {
  auto o = ParseObject(partitions_body);
  if (!o) return -1;
  const auto* partitions = o->if_contains("partitions");
  if (partitions == nullptr || !partitions->is_array()) return -1;
  return static_cast<int>(partitions->as_array().size());
}

std::map<std::string, int> WarningEvents(const std::string& log) {
  std::map<std::string, int> out;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("\"level\":\"warn") == std::string::npos &&
        line.find("\"level\":\"error") == std::string::npos) {
      continue;
    }
    auto o = ParseObject(line);
    if (!o) continue;
    const auto* event = o->if_contains("event");
    if (event != nullptr && event->is_string()) ++out[std::string(event->as_string())];
  }
  return out;
}

size_t SourceDuplicateBound(size_t tables_of_killed_owners, size_t page_size,
                            double rows_per_second, int64_t snapshot_interval_ms) {
  const double rows_per_interval =
      rows_per_second * static_cast<double>(snapshot_interval_ms) / 1000.0;
  return tables_of_killed_owners * page_size + static_cast<size_t>(rows_per_interval) + 1;
}

}  // namespace snowcar::testsupport
