// SPDX-License-Identifier: Apache-2.0
// Reading a row's cursor fields: raw strings, or {"display_value","value"} objects when the
// page was asked for with sysparm_display_value=all.
#include "snowcar/source/rows/row.h"

#include <boost/json/serialize.hpp>
#include <charconv>
#include <optional>

#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

constexpr size_t kShownValue = 100;

// The raw value of a field: the field itself, or the "value" member of a
// {"display_value","value"} object. nullptr when absent.
const boost::json::value* RawValue(const boost::json::object& row, std::string_view field) {
  const boost::json::value* v = row.if_contains(field);
  if (v != nullptr && v->is_object()) v = v->get_object().if_contains("value");
  return v;
}

// The raw text of a field: a string, a number, or the "value" member of an object. nullopt
// when the field is absent or holds something else (null, a bool, an array).
std::optional<std::string_view> RawText(const boost::json::object& row, std::string_view field,
                                        std::string& number_buffer) {
  const boost::json::value* v = RawValue(row, field);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return std::string_view(v->get_string());
  if (v->is_int64()) {
    number_buffer = std::to_string(v->get_int64());
    return std::string_view(number_buffer);
  }
  if (v->is_uint64()) {
    number_buffer = std::to_string(v->get_uint64());
    return std::string_view(number_buffer);
  }
  return std::nullopt;
}

bool IsBlankText(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::string Shown(std::string_view value) {
  std::string out(value.substr(0, kShownValue));
  if (value.size() > kShownValue) out += "...";
  return out;
}

Status BadRow(const TableSettings& table, std::string_view sys_id, std::string_view field,
              std::string_view problem) {
  std::string message = "table " + table.name + " (alias " + table.alias + "): row ";
  message += sys_id.empty() ? std::string("without a usable id") : "sys_id=" + Shown(sys_id);
  message += ": field ";
  message.append(field);
  message += " ";
  message.append(problem);
  message += "; to skip such rows (logged and counted) set snow.source.bad.row.behavior=skip";
  return Status::InvalidArgument(std::move(message));
}

}  // namespace

Result<RowKey> ReadRowKey(const boost::json::object& row, const TableSettings& table) {
  RowKey key;
  std::string number;
  const boost::json::value* id_value = RawValue(row, table.sys_id_field);
  if (id_value == nullptr) return BadRow(table, "", table.sys_id_field, "is missing");
  if (!id_value->is_string()) {
    return BadRow(table, "", table.sys_id_field,
                  "is not a string (" + Shown(boost::json::serialize(*id_value)) + ")");
  }
  const std::string_view id = id_value->get_string();
  if (IsBlankText(id)) return BadRow(table, "", table.sys_id_field, "is blank");
  if (id.find_first_of("^\r\n") != std::string_view::npos) {
    // It would go into the next keyset query and change its meaning.
    return BadRow(table, "", table.sys_id_field,
                  "has the value '" + Shown(id) + "', which contains '^' or a line break");
  }
  key.sys_id = id;

  const auto ts = RawText(row, table.timestamp_field, number);
  if (!ts.has_value()) return BadRow(table, key.sys_id, table.timestamp_field, "is missing");
  auto parsed = ParseSnowTimestamp(*ts);
  if (!parsed.ok()) {
    return BadRow(table, key.sys_id, table.timestamp_field,
                  "has the value '" + Shown(*ts) +
                      "', which is not a UTC date-time YYYY-MM-DD HH:MM:SS (is the integration "
                      "user's time zone or date format changed?)");
  }
  key.ts = *parsed;

  const auto mods = RawText(row, "sys_mod_count", number);
  if (mods.has_value() && !mods->empty()) {
    uint32_t count = 0;
    const auto [end, ec] = std::from_chars(mods->data(), mods->data() + mods->size(), count);
    if (ec != std::errc() || end != mods->data() + mods->size()) {
      return BadRow(table, key.sys_id, "sys_mod_count",
                    "has the value '" + Shown(*mods) + "', which is not a whole number");
    }
    key.mod_count = count;
  }
  return key;
}

bool IsAfter(const RowKey& key, int64_t position_ts, std::string_view position_sys_id) {
  if (key.ts != position_ts) return key.ts > position_ts;
  return key.sys_id > position_sys_id;
}

}  // namespace snowcar::source
