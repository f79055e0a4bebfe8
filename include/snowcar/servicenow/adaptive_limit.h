// SPDX-License-Identifier: Apache-2.0
// The per-instance concurrency limit under adaptive throttling.
//
// A 429 halves the limit (never below 1); 50 successes in a row give one permit back, up to
// the configured maximum. Additive increase after multiplicative decrease, so a busy
// instance sees the load drop at once and return slowly. Not thread-safe: the client keeps
// it on its strand.
#pragma once

namespace snowcar::servicenow {

class AdaptiveLimit {
 public:
  static constexpr int kSuccessesPerPermit = 50;

  // enabled=false pins the limit at `maximum` (snow.http.adaptive.throttling=false).
  AdaptiveLimit(int maximum, bool enabled);

  int limit() const { return limit_; }
  int maximum() const { return maximum_; }

  // An answer that is neither throttled nor a server failure.
  void OnSuccess();
  // A 429.
  void OnThrottled();
  // A 5xx or lost answer: ends the success streak without cutting the limit.
  void OnFailure();

 private:
  int maximum_;
  bool enabled_;
  int limit_;
  int streak_ = 0;
};

}  // namespace snowcar::servicenow
