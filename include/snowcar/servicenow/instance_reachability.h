// SPDX-License-Identifier: Apache-2.0
// Whether the ServiceNow instance can be used at all, as the shared client sees it.
//
// One per client, so one per instance. The client feeds it: every HTTP answer from the
// instance marks it reachable; a call that gave up for a reason that concerns the whole
// instance rather than the one request marks it unreachable, naming that reason. Which
// outcomes count is decided by the classification table (Verdict::instance_unreachable in
// classify.h): no connection could be made (refused, DNS, connect timeout, TLS) or the
// credentials were refused.
//
// "Unreachable" is the instance-wide state that /v1/health reports (component `servicenow`),
// that /v1/ready names while the source waits for the instance at start, and that later
// instance-wide handling (pausing every table at once, for example) can build on.
//
// Thread-safe. The listener runs on the feeding thread, outside the lock.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "snowcar/common/mutex.h"
#include "snowcar/common/time.h"

namespace snowcar::servicenow {

class InstanceReachability {
 public:
  enum class State {
    kUnknown,      // no call has finished yet
    kReachable,    // the latest news was an answer
    kUnreachable,  // the latest news was a call that gave up for an instance-wide reason
  };
  struct View {
    State state = State::kUnknown;
    std::string reason;        // why it is unreachable; "" otherwise
    int64_t since_ms = 0;      // wall clock (ms) of the last change of state; 0 before any
    int64_t failed_calls = 0;  // calls given up for an instance-wide reason in this spell
    // The latest instance-wide failure was the instance refusing the credentials (a final
    // 401, or the token endpoint), not a missing answer: an operator fixes a Secret, not a
    // network.
    bool credentials_refused = false;
    bool reachable() const { return state != State::kUnreachable; }
  };
  using Listener = std::function<void(const View&)>;

  explicit InstanceReachability(const Clock* clock = &SystemClock::Instance());

  // The instance answered an HTTP request (any status but a refusal of the credentials).
  void OnAnswered();
  // A call gave up: `reason` says why the instance as a whole cannot be used;
  // `credentials_refused` when the instance answered but refused the credentials.
  void OnUnreachable(const std::string& reason, bool credentials_refused = false);

  View Read() const;
  // Called when the instance turns reachable, and for every call that gives up while it is
  // unreachable (the reason or the count changed). Set it before the first call is sent.
  void SetListener(Listener listener);

  // One line for operators: "answering", "not contacted yet", "unreachable since <ISO time>
  // (N calls gave up): <reason>", or "credentials refused since <ISO time> (...): <reason>".
  static std::string Describe(const View& view);

 private:
  const Clock* clock_;
  mutable Mutex mu_;
  View view_ SNOWCAR_GUARDED_BY(mu_);
  Listener listener_ SNOWCAR_GUARDED_BY(mu_);
};

}  // namespace snowcar::servicenow
