// SPDX-License-Identifier: Apache-2.0
// The startup probe (snow.source.startup.probe): one cheap request per table before its
// first poll, so a wrong table name, missing rights or a bad query fail that table at once
// with a message saying what to fix, rather than as a cryptic error on the first page.
// Pure helpers; the poller sends the requests.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/servicenow/table_client.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source {

// GET <table>?sysparm_query=<base>&sysparm_fields=<id>,<ts>,sys_mod_count&sysparm_limit=1.
std::string ProbeTarget(const TableSettings& table);

// What the probe's answer means for the table:
//   OK                   the table answers and shows the cursor fields (or has no rows);
//   kUnavailable         transient (retries ran out): probe again after a back-off;
//   kFailedPrecondition  the table cannot be polled: the message names the table and the
//                        likely cause (credentials, ACL, no such table or view, bad query or
//                        field, a cursor field hidden by an ACL).
Status InterpretProbe(const TableSettings& table, const servicenow::CallResult& result);

// GET sys_user?sysparm_query=user_name=<user>&sysparm_fields=time_zone&sysparm_limit=1.
std::string TimeZoneTarget(std::string_view username);

// The user's time_zone from that answer, or nullopt when it says nothing.
std::optional<std::string> TimeZoneFrom(const servicenow::CallResult& result);

// True for "", "UTC", "GMT", "Etc/UTC", "Etc/GMT" (any case): zones in which the instance
// renders sys_updated_on as UTC.
bool IsUtcZone(std::string_view zone);

}  // namespace snowcar::source
