// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/adaptive_limit.h"

#include <algorithm>

namespace snowcar::servicenow {

AdaptiveLimit::AdaptiveLimit(int maximum, bool enabled)
    : maximum_(std::max(1, maximum)), enabled_(enabled), limit_(maximum_) {}

void AdaptiveLimit::OnSuccess() {
  if (!enabled_ || limit_ >= maximum_) {
    streak_ = 0;
    return;
  }
  if (++streak_ >= kSuccessesPerPermit) {
    ++limit_;
    streak_ = 0;
  }
}

void AdaptiveLimit::OnThrottled() {
  streak_ = 0;
  if (enabled_) limit_ = std::max(1, limit_ / 2);
}

void AdaptiveLimit::OnFailure() { streak_ = 0; }

}  // namespace snowcar::servicenow
