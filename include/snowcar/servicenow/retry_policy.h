// SPDX-License-Identifier: Apache-2.0
// When to try a call again, and how long to wait first. Pure arithmetic, no timers: the
// client arms an asio timer with the answer.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

namespace snowcar::servicenow {

struct RetryPolicy {
  int max_attempts = 5;              // snow.retry.max.attempts (the first try counts)
  int64_t max_elapsed_ms = 300000;   // snow.retry.max.elapsed.ms
  int64_t initial_backoff_ms = 500;  // snow.retry.initial.backoff.ms
  int64_t max_backoff_ms = 30000;    // snow.retry.max.backoff.ms
  bool operator==(const RetryPolicy&) const = default;
};

// A uniform draw in [0, upper] (inclusive). Injected so tests fix the jitter.
using JitterSource = std::function<int64_t(int64_t upper)>;
// The production source: a per-thread Mersenne twister seeded from std::random_device.
JitterSource DefaultJitter();

// The full-jitter ceiling after `attempts_made` failed attempts:
// min(max_backoff, initial * 2^(attempts_made - 1)), overflow-safe.
int64_t BackoffCeilingMs(const RetryPolicy& policy, int attempts_made);

// The wait before the next attempt, or nullopt to stop. `attempts_made` >= 1 attempts have
// failed; `elapsed_ms` have passed since the first started. A Retry-After from the instance
// wins over the random backoff and is not capped by max_backoff, but like any wait it must
// end inside the elapsed budget, or there is no next attempt.
std::optional<int64_t> NextRetryWaitMs(const RetryPolicy& policy, int attempts_made,
                                       int64_t elapsed_ms, std::optional<int64_t> retry_after_ms,
                                       const JitterSource& jitter);

}  // namespace snowcar::servicenow
