// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/instance_reachability.h"

#include <utility>

#include "snowcar/common/log.h"
#include "snowcar/common/mutex.h"

namespace snowcar::servicenow {

InstanceReachability::InstanceReachability(const Clock* clock) : clock_(clock) {}

void InstanceReachability::OnAnswered() {
  Listener listener;
  View now;
  bool was_unreachable = false;
  {
    MutexLock lock(mu_);
    if (view_.state == State::kReachable) return;  // the common case: nothing to tell
    was_unreachable = view_.state == State::kUnreachable;
    view_ = View{State::kReachable, "", clock_->NowMillis(), 0};
    now = view_;
    listener = listener_;
  }
  if (was_unreachable) SNOWCAR_LOG(kInfo, "snow.instance.reachable", {});
  if (listener) listener(now);
}

// Every call that gave up is told (not only the first): the count and the reason in the
// health detail stay current. Calls give up after their retries, so this is rare.
void InstanceReachability::OnUnreachable(const std::string& reason, bool credentials_refused) {
  Listener listener;
  View now;
  bool newly = false;
  {
    MutexLock lock(mu_);
    newly = view_.state != State::kUnreachable;
    if (newly) {
      view_.state = State::kUnreachable;
      view_.since_ms = clock_->NowMillis();
      view_.failed_calls = 0;
    }
    ++view_.failed_calls;
    view_.reason = reason;
    view_.credentials_refused = credentials_refused;
    now = view_;
    listener = listener_;
  }
  if (newly) {
    SNOWCAR_LOG(kWarn, "snow.instance.unreachable",
                {{"reason", reason}, {"credentials_refused", credentials_refused}});
  }
  if (listener) listener(now);
}

InstanceReachability::View InstanceReachability::Read() const {
  MutexLock lock(mu_);
  return view_;
}

void InstanceReachability::SetListener(Listener listener) {
  MutexLock lock(mu_);
  listener_ = std::move(listener);
}

std::string InstanceReachability::Describe(const View& view) {
  switch (view.state) {
    case State::kUnknown:
      return "not contacted yet";
    case State::kReachable:
      return "answering";
    case State::kUnreachable:
      return (view.credentials_refused ? "credentials refused since " : "unreachable since ") +
             FormatIso8601Millis(view.since_ms) + " (" + std::to_string(view.failed_calls) +
             (view.failed_calls == 1 ? " call" : " calls") + " gave up): " + view.reason;
  }
  return {};
}

}  // namespace snowcar::servicenow
