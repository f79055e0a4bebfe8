// SPDX-License-Identifier: Apache-2.0
// The keyset queries the source sends (reference-behaviour section 2), and the cursor
// identity they belong to. Pure functions: no I/O.
//
//   drain a second:  <base>^TS=T^SYSID>S^ORDERBYSYSID
//   move on:         <base>^TS>A^TS<=HI^ORDERBYTS^ORDERBYSYSID
//
// With `^NQ` in the base query the cursor terms are appended to every branch and ORDERBY
// comes once, at the end. Dates are written "YYYY-MM-DD HH:MM:SS" (UTC). An empty base query
// leaves just the cursor terms and the ordering. Draining from (T, "") (the whole second)
// drops the SYSID term rather than sending a comparison with an empty value, whose meaning
// the Table API does not document.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source {

// The form every base query is kept and hashed in: blanks around each `^` term and at either
// end dropped (also between `NQ`/`OR` and their condition), empty terms dropped, and a
// trailing `^EQ` (the end marker that list URLs carry) removed. Blanks inside a condition's
// value are kept: they are part of the value.
std::string NormalizeBaseQuery(std::string_view query);

std::string DrainSecondQuery(const TableSettings& table, int64_t ts, std::string_view after_sys_id);
std::string MoveOnQuery(const TableSettings& table, int64_t after_ts, int64_t hi_ts);
// Every row after the position (ts, after_sys_id) up to second hi_ts, in (ts, sys_id) order:
// the rest of second ts OR the seconds after it, one request where a drain and a move-on
// would take two.
std::string KeysetQuery(const TableSettings& table, int64_t ts, std::string_view after_sys_id,
                        int64_t hi_ts);

struct PageRequestOptions {
  int limit = 0;
  // false: sysparm_no_count=true (the default for pages); true asks for X-Total-Count (the
  // count check the poller makes after an empty page, see docs/source.md).
  bool with_count = false;
  // Overrides the table's projection (the startup probe asks for id, ts and mod count).
  std::string fields_override;
};

// The request target for one page: "/api/now/table/<name>?sysparm_query=...&sysparm_limit=..."
// with sysparm_fields, sysparm_display_value (cursor fields stay raw: see record_builder.h),
// sysparm_exclude_reference_link, the domain flag, sysparm_no_count and
// sysparm_suppress_pagination_header=true. Never sysparm_offset. Every value is
// percent-encoded. Parameter by parameter:
//   sysparm_limit            options.limit, or the table's batch_size when it is 0
//   sysparm_fields           fields_override, else the table's fields; absent when both empty
//   sysparm_display_value    `false`, or `all` for display_value=true and all (RecordBuilder
//                            renders `true` from `all`, keeping the cursor fields raw)
//   sysparm_exclude_reference_link  the table's flag
//   sysparm_query_no_domain  the inverse of `.query.domain`: true there (respect domain
//                            separation, the instance default) sends `false`; false sends
//                            `true`, asking for rows across every domain the user may see
//   sysparm_no_count         `true`, or `false` when with_count
std::string PageTarget(const TableSettings& table, std::string_view encoded_query,
                       const PageRequestOptions& options);

// Hex digest of (table name, whitespace-normalised base query, domain flag): the cursor
// identity's query fingerprint. Stable across releases: changing it orphans every cursor.
// 16 lower-case hex digits of FNV-1a 64 over name, 0, base_query, 0, "domain=1"|"domain=0".
std::string QueryFingerprint(const TableSettings& table);

// (source.instance, table.alias, QueryFingerprint(table), table.timestamp_field).
state::CursorIdentity IdentityFor(const SourceSettings& source, const TableSettings& table);

}  // namespace snowcar::source
