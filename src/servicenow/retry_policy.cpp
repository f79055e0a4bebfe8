// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/retry_policy.h"

#include <algorithm>
#include <random>

namespace snowcar::servicenow {

JitterSource DefaultJitter() {
  return [](int64_t upper) -> int64_t {
    if (upper <= 0) return 0;
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return std::uniform_int_distribution<int64_t>(0, upper)(rng);
  };
}

int64_t BackoffCeilingMs(const RetryPolicy& policy, int attempts_made) {
  const int64_t cap = std::max<int64_t>(0, policy.max_backoff_ms);
  int64_t ceiling = std::max<int64_t>(0, policy.initial_backoff_ms);
  for (int i = 1; i < attempts_made && ceiling < cap; ++i) ceiling *= 2;
  return std::min(ceiling, cap);
}

std::optional<int64_t> NextRetryWaitMs(const RetryPolicy& policy, int attempts_made,
                                       int64_t elapsed_ms, std::optional<int64_t> retry_after_ms,
                                       const JitterSource& jitter) {
  if (attempts_made >= policy.max_attempts) return std::nullopt;
  int64_t wait = 0;
  if (retry_after_ms) {
    wait = std::max<int64_t>(0, *retry_after_ms);
  } else {
    const int64_t ceiling = BackoffCeilingMs(policy, attempts_made);
    wait = std::clamp<int64_t>(jitter ? jitter(ceiling) : ceiling, 0, ceiling);
  }
  if (elapsed_ms + wait > policy.max_elapsed_ms) return std::nullopt;
  return wait;
}

}  // namespace snowcar::servicenow
