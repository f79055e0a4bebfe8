// The keyset queries the source sends (reference-behaviour section 2), and the cursor
// identity they belong to. Pure functions: no I/O.
//
//   drain a second:  <base>^TS=T^SYSID>S^ORDERBYSYSID
//   move on:         <base>^TS>A^TS<=HI^ORDERBYTS^ORDERBYSYSID
//
// With `^NQ` in the base query the cursor terms are appended to every branch and ORDERBY
// comes once, at the end. Dates are written "YYYY-MM-DD HH:MM:SS" (UTC).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source {

std::string DrainSecondQuery(const TableSettings& table, int64_t ts, std::string_view after_sys_id);
std::string MoveOnQuery(const TableSettings& table, int64_t after_ts, int64_t hi_ts);

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
// sysparm_suppress_pagination_header=true. Never sysparm_offset.
std::string PageTarget(const TableSettings& table, std::string_view encoded_query,
                       const PageRequestOptions& options);

// Hex digest of (table name, whitespace-normalised base query, domain flag): the cursor
// identity's query fingerprint. Stable across releases: changing it orphans every cursor.
std::string QueryFingerprint(const TableSettings& table);

state::CursorIdentity IdentityFor(const SourceSettings& source, const TableSettings& table);

}  // namespace snowcar::source
