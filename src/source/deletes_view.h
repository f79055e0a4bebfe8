// SPDX-License-Identifier: Apache-2.0
// What a table's deletion capture shows on the socket (the "deletions" member of
// /v1/source/tables/{alias}, `snowcar state deletes`) and in /metrics: deletes emitted by
// the audit stream and by reconciliation, and the reconciliation sweeps (docs/socket-api.md).
#pragma once

#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <vector>

#include "poller/table_poller.h"

namespace snowcar::source {

// null for a table with deletes=none.
boost::json::value DeletesJson(const TablePoller& poller);

// The families of include/snowcar/api/metric_names.h for the tables that capture deletes.
void WriteDeletesMetrics(std::string& out,
                         const std::vector<std::shared_ptr<TablePoller>>& pollers);

}  // namespace snowcar::source
