// SPDX-License-Identifier: Apache-2.0
#include "token_source.h"

#include <algorithm>

#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"
#include "snowcar/servicenow/oauth_form.h"

namespace snowcar::servicenow {

TokenSource::TokenSource(const ClientOptions& options, const CredentialFiles& credentials,
                         const Clock& clock, SendRaw send)
    : options_(options), credentials_(credentials), clock_(clock), send_(std::move(send)) {}

void TokenSource::Get(TokenCallback cb) {
  if (!access_.empty() && clock_.NowMillis() < refresh_at_ms_) {
    cb(access_);
    return;
  }
  waiters_.push_back(std::move(cb));
  if (fetching_) return;
  fetching_ = true;
  Fetch(/*with_refresh=*/!refresh_.empty());
}

void TokenSource::Invalidate(const std::string& token) {
  if (token == access_) access_.clear();
}

void TokenSource::Reset() {
  access_.clear();
  refresh_.clear();
  refresh_at_ms_ = 0;
}

void TokenSource::FailAll(const Status& status) {
  auto waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& w : waiters) w(status);
}

void TokenSource::Fetch(bool with_refresh) {
  TransferSpec spec;
  spec.method = Method::kPost;
  spec.url = options_.EffectiveTokenUrl();
  const ClientOptions current = WithCredentials(options_, credentials_.Current());
  spec.body = with_refresh ? RefreshGrantForm(current, refresh_) : PrimaryGrantForm(current);
  spec.content_type = "application/x-www-form-urlencoded";
  ++requests_;
  SNOWCAR_LOG(kDebug, "snow.oauth.request",
              {{"grant", with_refresh                                  ? "refresh_token"
                         : options_.grant_type == GrantType::kPassword ? "password"
                                                                       : "client_credentials"},
               {"url", redact::Mask(spec.url)}});
  send_(spec, [this, with_refresh](Transfer& t, CURLcode code) {
    Result<IssuedToken> issued = Status::Unavailable("");
    if (code == CURLE_ABORTED_BY_CALLBACK) {
      Finish(Status::Cancelled("the client stopped"));
      return;
    }
    if (code != CURLE_OK) {
      issued = Status::Unavailable(redact::Mask(
          std::string("the token endpoint could not be reached: ") + curl_easy_strerror(code)));
    } else {
      t.response.status = t.ResponseStatus();
      issued = ParseTokenAnswer(t.response);
    }
    if (issued.ok()) {
      redact::RegisterSecret(issued->access_token);
      if (!issued->refresh_token.empty()) {
        redact::RegisterSecret(issued->refresh_token);
        refresh_ = issued->refresh_token;
      }
      access_ = issued->access_token;
      const int64_t lifetime_ms = issued->expires_in_seconds * 1000;
      refresh_at_ms_ =
          clock_.NowMillis() + lifetime_ms - std::min(kRefreshMarginMs, lifetime_ms / 2);
      SNOWCAR_LOG(
          kDebug, "snow.oauth.token",
          {{"expires_in_s", issued->expires_in_seconds}, {"refresh_token", !refresh_.empty()}});
      Finish(access_);
      return;
    }
    if (with_refresh) {
      // The refresh token expired or was revoked: start over with the primary grant.
      SNOWCAR_LOG(kInfo, "snow.oauth.refresh_failed", {{"error", issued.status().message()}});
      refresh_.clear();
      Fetch(/*with_refresh=*/false);
      return;
    }
    SNOWCAR_LOG(kWarn, "snow.oauth.failed", {{"error", issued.status().message()}});
    Finish(issued.status());
  });
}

void TokenSource::Finish(const Result<std::string>& token) {
  fetching_ = false;
  auto waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& w : waiters) w(token);
}

}  // namespace snowcar::servicenow
