// SPDX-License-Identifier: Apache-2.0
// OAuth 2 access tokens for the client: fetched lazily, shared by every call, refreshed
// ahead of expiry, one token request at a time however many calls wait (single-flight).
//
// Runs on the client's strand; not thread-safe by itself.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "curl_transfer.h"
#include "snowcar/common/status.h"
#include "snowcar/common/time.h"
#include "snowcar/servicenow/client_options.h"
#include "snowcar/servicenow/credential_files.h"

namespace snowcar::servicenow {

class TokenSource {
 public:
  // Refresh this long before the token's stated expiry.
  static constexpr int64_t kRefreshMarginMs = 30000;

  using TokenCallback = std::function<void(Result<std::string>)>;
  // Sends one transfer through the client's multi loop, without a permit.
  using SendRaw =
      std::function<void(const TransferSpec&, std::function<void(Transfer&, CURLcode)>)>;

  // Each token request sends the credentials `credentials` holds at that moment.
  TokenSource(const ClientOptions& options, const CredentialFiles& credentials, const Clock& clock,
              SendRaw send);

  // Calls `cb` with a live access token: at once when one is cached, else after the (single)
  // token request in flight ends. PermissionDenied when the endpoint refused the
  // credentials (fatal), Unavailable when it could not be reached (retry later).
  void Get(TokenCallback cb);
  // The instance rejected `token` (401): forget it unless a newer one replaced it already.
  void Invalidate(const std::string& token);
  // The credentials changed: forget the cached access and refresh tokens, so the next Get
  // starts over with the primary grant. A request in flight is left to finish.
  void Reset();
  // Fails every waiter with `status` (shutdown).
  void FailAll(const Status& status);

  int64_t requests() const { return requests_; }

 private:
  void Fetch(bool with_refresh);
  void Finish(const Result<std::string>& token);

  const ClientOptions& options_;
  const CredentialFiles& credentials_;
  const Clock& clock_;
  SendRaw send_;
  std::string access_;
  std::string refresh_;
  int64_t refresh_at_ms_ = 0;
  bool fetching_ = false;
  std::vector<TokenCallback> waiters_;
  int64_t requests_ = 0;
};

}  // namespace snowcar::servicenow
