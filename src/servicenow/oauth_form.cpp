// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/oauth_form.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstdlib>

#include "snowcar/common/redact.h"
#include "snowcar/common/url_encoding.h"

namespace snowcar::servicenow {
namespace {

void Append(std::string& form, std::string_view key, std::string_view value) {
  if (!form.empty()) form += '&';
  form += key;
  form += '=';
  form += PercentEncode(value);  // a form value: unreserved kept, space as %20
}

}  // namespace

std::string PrimaryGrantForm(const ClientOptions& o) {
  std::string form;
  if (o.grant_type == GrantType::kPassword) {
    Append(form, "grant_type", "password");
    Append(form, "client_id", o.client_id);
    Append(form, "client_secret", o.client_secret);
    Append(form, "username", o.username);
    Append(form, "password", o.password);
  } else {
    Append(form, "grant_type", "client_credentials");
    Append(form, "client_id", o.client_id);
    Append(form, "client_secret", o.client_secret);
  }
  if (!o.scope.empty()) Append(form, "scope", o.scope);
  return form;
}

std::string RefreshGrantForm(const ClientOptions& o, std::string_view refresh_token) {
  std::string form;
  Append(form, "grant_type", "refresh_token");
  Append(form, "client_id", o.client_id);
  Append(form, "client_secret", o.client_secret);
  Append(form, "refresh_token", refresh_token);
  return form;
}

Result<IssuedToken> ParseTokenAnswer(const InstanceResponse& response) {
  boost::json::error_code ec;
  boost::json::value root = boost::json::parse(response.body, ec);
  const boost::json::object* obj = !ec && root.is_object() ? &root.as_object() : nullptr;
  auto field = [&](std::string_view name) -> std::string {
    if (obj == nullptr) return {};
    const auto* v = obj->if_contains(name);
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  const int s = response.status;
  if (s == 400 || s == 401 || s == 403) {
    std::string why = field("error");
    if (std::string d = field("error_description"); !d.empty()) why += why.empty() ? d : ": " + d;
    if (why.empty()) why = "no reason given";
    return Status::PermissionDenied(redact::Mask(
        "the token endpoint refused the credentials (HTTP " + std::to_string(s) + ", " + why +
        "); check snow.oauth.client.id, snow.oauth.client.secret and the grant's user"));
  }
  if (s < 200 || s >= 300) {
    return Status::Unavailable("the token endpoint answered HTTP " + std::to_string(s));
  }
  IssuedToken token;
  token.access_token = field("access_token");
  token.refresh_token = field("refresh_token");
  if (obj != nullptr) {
    if (const auto* e = obj->if_contains("expires_in")) {
      if (e->is_int64())
        token.expires_in_seconds = e->as_int64();
      else if (e->is_uint64())
        token.expires_in_seconds = static_cast<int64_t>(e->as_uint64());
      else if (e->is_double())
        token.expires_in_seconds = static_cast<int64_t>(e->as_double());
      else if (e->is_string())
        token.expires_in_seconds = std::atoll(e->as_string().c_str());
    }
  }
  if (token.access_token.empty()) {
    return Status::Unavailable("the token endpoint answered without an access_token");
  }
  if (token.expires_in_seconds <= 0) token.expires_in_seconds = 1799;
  return token;
}

}  // namespace snowcar::servicenow
