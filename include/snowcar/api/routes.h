// SPDX-License-Identifier: Apache-2.0
// The built-in routes of the socket API. Other modules add their own live views
// (/v1/source/..., /v1/sink/..., /metrics) to the same ApiRouter.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <string_view>

#include "snowcar/api/api_router.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/status.h"
#include "snowcar/state/state_store.h"

namespace snowcar::api {

// GET /v1/health and GET /v1/ready. `readiness` and `health` must outlive the router.
Status RegisterCoreRoutes(ApiRouter& router, const Readiness& readiness,
                          const HealthRegistry& health);

// Asked before a cursor reset changes anything, with the table alias. A non-OK answer refuses
// the reset with that message (kFailedPrecondition: HTTP 409, e.g. "the table's poller is
// running; stop it first"). The sidecar's source fills it; null allows every reset, which is
// right offline (--state-dir), where the store's lock already proves no poller runs.
using BeforeReset = std::function<Status(std::string_view table)>;

// The raw state views and the cursor reset:
//   GET  /v1/state/cursors
//   GET  /v1/state/cursors/{table}
//   GET  /v1/state/dedup/{table}?sys_id=...
//   GET  /v1/state/correlation/{table}/{field}/{value}
//   POST /v1/state/cursors/{table}/reset     body: none, {} or {"to":"YYYY-MM-DD HH:MM:SS"}
// Without "to" the reset forgets the table's cursors and dedup entries. With "to" it rewinds:
// every cursor stored for the table moves to (to, "") in phase backfill, and the dedup
// entries are kept, so the re-read sends only row versions not sent before (the poller's next
// commit prunes them as usual). A rewind needs a stored cursor (404 otherwise). `store` must
// outlive the router.
Status RegisterStateRoutes(ApiRouter& router, state::StateStore& store,
                           BeforeReset before_reset = {});

// GET /v1/state/origin/{table}/{sys_id} (state_origin_route.cpp): the versions of one row
// the sink wrote, lowest sys_mod_count first, each with its command record (topic,
// partition, offset, correlation, request id) and the number of versions recorded in all.
// `table` is the ServiceNow table name. Registered by RegisterStateRoutes.
Status RegisterOriginRoute(ApiRouter& router, state::StateStore& store);

// The one correlation lookup, for routes of the form .../{table}/{field}/{value}: the sys_id
// `store` has cached for the value, as {"table","field","value","sys_id"} plus the `extra`
// fields. 404 names the value when none is cached, 400 a bad table name, 503 a store that is
// not open (null) or a retriable store error. Serves /v1/state/correlation/... and the sink's
// /v1/sink/correlation/.... `store`, when not null, must outlive the router.
Handler CorrelationLookup(state::StateStore* store, boost::json::object extra = {});

}  // namespace snowcar::api
