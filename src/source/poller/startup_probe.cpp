// SPDX-License-Identifier: Apache-2.0
#include "startup_probe.h"

#include <boost/json.hpp>
#include <cctype>

#include "snowcar/source/rows/keyset_query.h"

namespace snowcar::source {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string EncodeValue(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

}  // namespace

std::string ProbeTarget(const TableSettings& table) {
  PageRequestOptions options;
  options.limit = 1;
  options.fields_override = table.sys_id_field + "," + table.timestamp_field + ",sys_mod_count";
  return PageTarget(table, table.base_query, options);
}

Status InterpretProbe(const TableSettings& table, const servicenow::CallResult& result) {
  using servicenow::OutcomeClass;
  const std::string who = "table " + table.alias + " (" + table.name + ")";
  const std::string said =
      result.message.empty() ? "" : " (the instance said: " + result.message + ")";
  switch (result.klass) {
    case OutcomeClass::kOk:
      break;
    case OutcomeClass::kUnauthorized:
      return Status::FailedPrecondition(
          who + ": the startup probe was refused with HTTP 401" + said +
          ": the credentials are wrong or expired; check snow.auth.username / "
          "snow.auth.password (or the OAuth client settings)");
    case OutcomeClass::kPermission:
      return Status::FailedPrecondition(
          who + ": the startup probe was refused with HTTP 403" + said +
          ": the integration user may not read this table; grant it read access (an ACL or "
          "a role such as itil/snc_read_only)");
    case OutcomeClass::kNotFound:
      return Status::FailedPrecondition(
          who + ": the startup probe answered HTTP 404" + said +
          ": there is no such table or database view; check snow.table." + table.alias + ".name");
    case OutcomeClass::kPermanent:
      return Status::FailedPrecondition(
          who + ": the startup probe was refused with HTTP " + std::to_string(result.http_status) +
          said +
          ": no such table (an instance answers \"Invalid table\" with HTTP 400), or the "
          "query or a field is bad; check snow.table." +
          table.alias + ".name, .query, .timestamp.field and .sys.id.field");
    default:
      return Status::Unavailable(who +
                                 ": the startup probe failed: " + result.ToStatus().message());
  }
  if (result.response.rows.empty()) return Status::Ok();  // no rows yet: nothing to check
  const auto* row = result.response.rows.front().if_object();
  if (row == nullptr) {
    return Status::FailedPrecondition(who +
                                      ": the startup probe answered rows that are not "
                                      "JSON objects");
  }
  for (const std::string* field : {&table.sys_id_field, &table.timestamp_field}) {
    if (!row->contains(*field)) {
      return Status::FailedPrecondition(
          who + ": the field " + *field +
          " is missing from the rows the integration user sees: an ACL hides it (or the "
          "field does not exist on this table); the source needs it to keep its place, so "
          "grant read access to it or set the right .sys.id.field / .timestamp.field");
    }
  }
  return Status::Ok();
}

std::string TimeZoneTarget(std::string_view username) {
  return "/api/now/table/sys_user?sysparm_query=" +
         EncodeValue("user_name=" + std::string(username)) +
         "&sysparm_fields=time_zone&sysparm_limit=1";
}

std::optional<std::string> TimeZoneFrom(const servicenow::CallResult& result) {
  if (!result.ok() || result.response.rows.empty()) return std::nullopt;
  const auto* row = result.response.rows.front().if_object();
  if (row == nullptr) return std::nullopt;
  const auto* zone = row->if_contains("time_zone");
  if (zone == nullptr) return std::nullopt;
  if (const auto* s = zone->if_string()) return std::string(*s);
  if (const auto* o = zone->if_object()) {
    if (const auto* v = o->if_contains("value"); v != nullptr && v->is_string()) {
      return std::string(v->get_string());
    }
  }
  return std::nullopt;
}

bool IsUtcZone(std::string_view zone) {
  const std::string z = Lower(zone);
  return z.empty() || z == "utc" || z == "gmt" || z == "etc/utc" || z == "etc/gmt";
}

}  // namespace snowcar::source
