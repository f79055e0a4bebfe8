// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/emulator/oauth_tokens.h"

#include <random>

#include "snowcar/common/redact.h"

namespace snowcar::emulator {
namespace {

std::string RandomToken() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string out(86, 'A');
  for (auto& c : out) c = kAlphabet[rng() & 63];
  return out;
}

}  // namespace

void OAuthTokens::SetLifetimes(int64_t access_seconds, int64_t refresh_seconds) {
  std::lock_guard lock(mu_);
  access_seconds_ = access_seconds;
  refresh_seconds_ = refresh_seconds;
}

int64_t OAuthTokens::access_lifetime_seconds() const {
  std::lock_guard lock(mu_);
  return access_seconds_;
}

IssuedTokens OAuthTokens::Issue(const std::string& user, bool with_refresh) {
  const int64_t now = clock_.NowMillis();
  IssuedTokens out;
  out.access_token = RandomToken();
  redact::RegisterSecret(out.access_token);
  std::lock_guard lock(mu_);
  access_[out.access_token] = {user, now + access_seconds_ * 1000};
  issued_.push_back(out.access_token);
  out.expires_in_seconds = access_seconds_ > 0 ? access_seconds_ - 1 : 0;
  if (with_refresh) {
    out.refresh_token = RandomToken();
    redact::RegisterSecret(out.refresh_token);
    refresh_[out.refresh_token] = {user, now + refresh_seconds_ * 1000};
    issued_.push_back(out.refresh_token);
  }
  return out;
}

std::optional<IssuedTokens> OAuthTokens::Refresh(std::string_view refresh_token) {
  std::string user;
  {
    std::lock_guard lock(mu_);
    auto it = refresh_.find(std::string(refresh_token));
    if (it == refresh_.end() || it->second.expires_at_ms <= clock_.NowMillis()) {
      return std::nullopt;
    }
    user = it->second.user;
  }
  IssuedTokens out = Issue(user, false);
  out.refresh_token = std::string(refresh_token);
  return out;
}

std::optional<std::string> OAuthTokens::UserOf(std::string_view access_token) const {
  std::lock_guard lock(mu_);
  auto it = access_.find(std::string(access_token));
  if (it == access_.end() || it->second.expires_at_ms <= clock_.NowMillis()) return std::nullopt;
  return it->second.user;
}

void OAuthTokens::RevokeAll() {
  std::lock_guard lock(mu_);
  access_.clear();
  refresh_.clear();
}

std::vector<std::string> OAuthTokens::IssuedSoFar() const {
  std::lock_guard lock(mu_);
  return issued_;
}

}  // namespace snowcar::emulator
