// SPDX-License-Identifier: Apache-2.0
// OAuth 2 tokens issued by the emulator's /oauth_token.do.
//
// Tokens are random 86-character URL-safe strings, like an instance's. Expiry is read from
// the emulator clock, so a test expires a token by advancing the clock instead of waiting.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "snowcar/common/time.h"

namespace snowcar::emulator {

struct IssuedTokens {
  std::string access_token;
  std::string refresh_token;
  int64_t expires_in_seconds = 0;  // what the answer's expires_in says (lifetime - 1)
};

class OAuthTokens {
 public:
  explicit OAuthTokens(const Clock& clock) : clock_(clock) {}

  // Lifetimes in seconds: an instance's defaults are 1800 s and 100 days.
  void SetLifetimes(int64_t access_seconds, int64_t refresh_seconds);
  int64_t access_lifetime_seconds() const;

  // A new access token for `user`, and a new refresh token when `with_refresh`.
  IssuedTokens Issue(const std::string& user, bool with_refresh);
  // A new access token from a live refresh token (which stays valid); nullopt if unknown or
  // expired.
  std::optional<IssuedTokens> Refresh(std::string_view refresh_token);
  // The user of a live access token; nullopt if unknown or expired.
  std::optional<std::string> UserOf(std::string_view access_token) const;
  // Forgets every token (clients must authenticate again).
  void RevokeAll();
  // Every access and refresh token issued so far, revoked and expired ones included: secrets
  // tests search a client's output for them.
  std::vector<std::string> IssuedSoFar() const;

 private:
  struct Grant {
    std::string user;
    int64_t expires_at_ms = 0;
  };
  const Clock& clock_;
  mutable std::mutex mu_;
  int64_t access_seconds_ = 1800;
  int64_t refresh_seconds_ = 100LL * 24 * 3600;
  std::unordered_map<std::string, Grant> access_;
  std::unordered_map<std::string, Grant> refresh_;
  std::vector<std::string> issued_;
};

}  // namespace snowcar::emulator
