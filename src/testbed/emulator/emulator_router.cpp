// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/emulator_router.h"

#include "testbed/emulator/auth_check.h"
#include "testbed/emulator/batch_api.h"
#include "testbed/emulator/control_api.h"
#include "testbed/emulator/fault_answers.h"
#include "testbed/emulator/gzip.h"
#include "testbed/emulator/oauth_endpoint.h"
#include "testbed/emulator/responses.h"
#include "testbed/emulator/table_api.h"

namespace snowcar::emulator {

EmulatorResponse Route(const ServerContext& ctx, EmulatorRequest& req) {
  if (req.path.rfind("/_emulator/", 0) == 0) {
    EmulatorResponse r = HandleControl(ctx, req);
    r.journaled = false;
    return r;
  }

  JournalEntry entry;
  entry.time_ms = ctx.clock.NowMillis();
  entry.method = req.method;
  entry.target = req.target;

  const int64_t delay = ctx.faults.DelayMs(req.method, req.path);
  const std::optional<FaultRule> fault = ctx.faults.Pick(req.method, req.path);

  EmulatorResponse r;
  const bool is_oauth = req.path == "/oauth_token.do";
  AuthResult auth;
  if (is_oauth) {
    auth.kind = "form";
  } else {
    auth = Authenticate(ctx, req);
  }
  if (fault.has_value() && ReplacesRequest(fault->kind)) {
    r = FaultAnswer(*fault, req.method, ctx.clock);
  } else if (is_oauth) {
    r = HandleOAuthToken(ctx, req);
  } else if (!auth.ok) {
    r = NotAuthenticated(ctx.clock);
  } else if (req.path == "/api/now/v1/batch" || req.path == "/api/now/batch") {
    r = HandleBatch(ctx, req, auth.user);
  } else if (IsTableApiPath(req.path)) {
    r = HandleTableApi(ctx, req, auth.user, fault);
  } else {
    r = ErrorResponse(400, "Requested URI does not represent any resource", std::nullopt,
                      ctx.clock);
  }
  r.delay_ms = delay;
  if (fault.has_value() && !ReplacesRequest(fault->kind)) ApplyDeliveryFault(*fault, r);
  if (ctx.options.gzip) MaybeGzip(req, r);

  entry.auth = auth.kind;
  entry.user = auth.user;
  entry.status = r.status;
  if (fault.has_value()) entry.fault = std::string(FaultKindName(fault->kind));
  ctx.journal.Add(std::move(entry));
  return r;
}

}  // namespace snowcar::emulator
