// SPDX-License-Identifier: Apache-2.0
// The Table API routes: /api/now/[v1/|v2/]table/{table}[/{sys_id}].
//
// Also used by the Batch API for each item, with the batch's authenticated user.
#pragma once

#include <optional>
#include <string>

#include "snowcar/testbed/emulator/faults.h"
#include "testbed/emulator/emulator_http.h"
#include "testbed/emulator/server_context.h"

namespace snowcar::emulator {

// True for paths this module answers (anything under /api/now/ except the Batch API).
bool IsTableApiPath(std::string_view path);

// `fault` is the fault rule picked for this request when it changes how a list is answered
// (kTimedOutQuery); other faults are applied by the caller.
EmulatorResponse HandleTableApi(const ServerContext& ctx, const EmulatorRequest& request,
                                const std::string& user, const std::optional<FaultRule>& fault);

}  // namespace snowcar::emulator
