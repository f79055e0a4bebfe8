// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/call_cancel.h"

#include <utility>

namespace snowcar::servicenow {

void CallCancel::Cancel() {
  std::map<uint64_t, std::function<void()>> wakes;
  {
    MutexLock lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    wakes.swap(wakes_);
  }
  for (auto& [id, wake] : wakes) wake();
}

bool CallCancel::cancelled() const {
  MutexLock lock(mu_);
  return cancelled_;
}

uint64_t CallCancel::OnCancel(std::function<void()> wake) {
  {
    MutexLock lock(mu_);
    if (!cancelled_) {
      const uint64_t id = ++next_id_;
      wakes_.emplace(id, std::move(wake));
      return id;
    }
  }
  wake();
  return 0;
}

void CallCancel::Forget(uint64_t id) {
  MutexLock lock(mu_);
  wakes_.erase(id);
}

}  // namespace snowcar::servicenow
