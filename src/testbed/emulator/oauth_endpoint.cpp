// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/oauth_endpoint.h"

#include "snowcar/testbed/emulator/row_render.h"
#include "testbed/emulator/responses.h"
#include "testbed/emulator/url_params.h"

namespace snowcar::emulator {
namespace {

// The one failure answer an instance gives for a bad client, user or refresh token.
EmulatorResponse Denied(const ServerContext& ctx) {
  EmulatorResponse r;
  r.status = 401;
  r.headers.push_back({"Content-Type", "application/json;charset=UTF-8"});
  r.headers.push_back({"Date", HttpDate(ctx.clock.NowSeconds())});
  r.headers.push_back({"Server", "ServiceNow"});
  r.body = R"({"error_description":"access_denied","error":"server_error"})";
  return r;
}

std::string TokenBody(const IssuedTokens& tokens) {
  std::string out = "{\"access_token\":";
  AppendJsonString(tokens.access_token, &out);
  if (!tokens.refresh_token.empty()) {
    out += ",\"refresh_token\":";
    AppendJsonString(tokens.refresh_token, &out);
  }
  out += ",\"scope\":\"useraccount\",\"token_type\":\"Bearer\",\"expires_in\":";
  out += std::to_string(tokens.expires_in_seconds);
  out += '}';
  return out;
}

std::string Param(const std::vector<UrlParam>& params, std::string_view key) {
  const UrlParam* p = FindParam(params, key);
  return p == nullptr ? std::string() : p->value;
}

}  // namespace

EmulatorResponse HandleOAuthToken(const ServerContext& ctx, const EmulatorRequest& req) {
  if (req.method != "POST") {
    return ErrorResponse(405, "Method not Supported", "use POST", ctx.clock);
  }
  // Only a form body is read; parameters in a JSON body or the query string are not seen, so
  // such a request fails like one with no credentials.
  const std::string* type = req.FindHeader("Content-Type");
  if (type == nullptr || type->rfind("application/x-www-form-urlencoded", 0) != 0) {
    return Denied(ctx);
  }
  const auto form = ParseUrlParams(req.body);
  if (Param(form, "client_id") != ctx.options.client_id ||
      Param(form, "client_secret") != ctx.options.client_secret) {
    return Denied(ctx);
  }
  const std::string grant = Param(form, "grant_type");
  IssuedTokens tokens;
  if (grant == "password") {
    if (Param(form, "username") != ctx.options.user ||
        Param(form, "password") != ctx.options.password) {
      return Denied(ctx);
    }
    tokens = ctx.oauth.Issue(ctx.options.user, true);
  } else if (grant == "client_credentials") {
    // The client acts as the configured integration user; no refresh token for this grant.
    tokens = ctx.oauth.Issue(ctx.options.user, false);
  } else if (grant == "refresh_token") {
    auto refreshed = ctx.oauth.Refresh(Param(form, "refresh_token"));
    if (!refreshed) return Denied(ctx);
    tokens = std::move(*refreshed);
  } else {
    return Denied(ctx);
  }
  EmulatorResponse r;
  r.status = 200;
  r.headers.push_back({"Content-Type", "application/json;charset=UTF-8"});
  r.headers.push_back({"Date", HttpDate(ctx.clock.NowSeconds())});
  r.headers.push_back({"Server", "ServiceNow"});
  r.headers.push_back({"Cache-Control", "no-store"});
  r.headers.push_back({"Pragma", "no-cache"});
  r.body = TokenBody(tokens);
  return r;
}

}  // namespace snowcar::emulator
