// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/readiness.h"

#include "snowcar/common/mutex.h"

namespace snowcar::api {

Readiness::Readiness() : reason_("starting up") {}

void Readiness::SetNotReady(std::string reason) {
  {
    MutexLock lock(mu_);
    ready_ = false;
    reason_ = reason.empty() ? "starting up" : std::move(reason);
  }
  Refresh();
}

void Readiness::MarkReady() {
  {
    MutexLock lock(mu_);
    ready_ = true;
    reason_.clear();
  }
  Refresh();
}

void Readiness::SetListener(std::function<void(bool ready, const std::string& reason)> listener) {
  MutexLock lock(observe_mu_);
  listener_ = std::move(listener);
}

void Readiness::SetGate(std::function<std::string()> gate) {
  MutexLock lock(mu_);
  gate_ = std::move(gate);
}

std::string Readiness::Evaluate() const {
  std::function<std::string()> gate;
  {
    MutexLock lock(mu_);
    if (!ready_) return reason_;
    gate = gate_;
  }
  return gate ? gate() : std::string();
}

std::string Readiness::reason() const {
  MutexLock lock(observe_mu_);
  std::string why = Evaluate();
  Observe(why);
  return why;
}

void Readiness::Observe(const std::string& reason) const {
  const bool now_ready = reason.empty();
  if (now_ready == observed_ready_) return;
  observed_ready_ = now_ready;
  if (listener_) listener_(now_ready, reason);
}

void HealthRegistry::Report(const std::string& name, bool ok, std::string detail) {
  MutexLock lock(mu_);
  components_[name] = Component{ok, std::move(detail)};
}

void HealthRegistry::Remove(const std::string& name) {
  MutexLock lock(mu_);
  components_.erase(name);
}

std::map<std::string, HealthRegistry::Component> HealthRegistry::Snapshot() const {
  MutexLock lock(mu_);
  return components_;
}

}  // namespace snowcar::api
