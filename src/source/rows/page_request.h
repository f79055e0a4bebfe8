// SPDX-License-Identifier: Apache-2.0
// Turning the plan's next step into the request target the poller sends: the keyset query
// shapes come from keyset_query.h; this adds the sys_id upper bound a hidden-row bisection
// needs, and the count form of a request (limit 1, X-Total-Count asked for).
#pragma once

#include <string>
#include <string_view>

#include "poll_plan.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source {

// The encoded query (sysparm_query value, before percent-encoding) of `query`.
std::string EncodedQueryFor(const TableSettings& table, const PlannedQuery& query);

// "/api/now/table/<name>?..." for `query`: a page of table.batch_size rows (with
// X-Total-Count when query.with_total), or for a count request one row with X-Total-Count.
std::string PageTargetFor(const TableSettings& table, const PlannedQuery& query);

// Adds `term` (e.g. "sys_id<=abc") to every ^NQ branch of `encoded`, before the ORDERBY
// part at its end.
std::string AddTermToEveryBranch(std::string_view encoded, std::string_view term);

}  // namespace snowcar::source
