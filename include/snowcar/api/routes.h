// The built-in routes of the socket API. Other modules add their own live views
// (/v1/source/..., /v1/sink/..., /metrics) to the same Router.
#pragma once

#include "snowcar/api/readiness.h"
#include "snowcar/api/router.h"
#include "snowcar/common/status.h"
#include "snowcar/state/state_store.h"

namespace snowcar::api {

// GET /v1/health and GET /v1/ready. `readiness` and `health` must outlive the router.
Status RegisterCoreRoutes(Router& router, const Readiness& readiness, const HealthRegistry& health);

// The raw state views and the cursor reset:
//   GET  /v1/state/cursors
//   GET  /v1/state/cursors/{table}
//   GET  /v1/state/dedup/{table}?sys_id=...
//   GET  /v1/state/correlation/{table}/{field}/{value}
//   POST /v1/state/cursors/{table}/reset
// `store` must outlive the router.
Status RegisterStateRoutes(Router& router, state::StateStore& store);

}  // namespace snowcar::api
