#include "snowcar/api/readiness.h"

namespace snowcar::api {

Readiness::Readiness() : reason_("starting up") {}

void Readiness::SetNotReady(std::string reason) {
  std::lock_guard lock(mu_);
  ready_ = false;
  reason_ = reason.empty() ? "starting up" : std::move(reason);
}

void Readiness::MarkReady() {
  std::lock_guard lock(mu_);
  ready_ = true;
  reason_.clear();
}

void Readiness::SetGate(std::function<std::string()> gate) {
  std::lock_guard lock(mu_);
  gate_ = std::move(gate);
}

std::string Readiness::GateReason() const {
  std::function<std::string()> gate;
  {
    std::lock_guard lock(mu_);
    gate = gate_;
  }
  return gate ? gate() : std::string();
}

bool Readiness::ready() const {
  {
    std::lock_guard lock(mu_);
    if (!ready_) return false;
  }
  return GateReason().empty();
}

std::string Readiness::reason() const {
  {
    std::lock_guard lock(mu_);
    if (!ready_) return reason_;
  }
  return GateReason();
}

void HealthRegistry::Report(const std::string& name, bool ok, std::string detail) {
  std::lock_guard lock(mu_);
  components_[name] = Component{ok, std::move(detail)};
}

void HealthRegistry::Remove(const std::string& name) {
  std::lock_guard lock(mu_);
  components_.erase(name);
}

std::map<std::string, HealthRegistry::Component> HealthRegistry::Snapshot() const {
  std::lock_guard lock(mu_);
  return components_;
}

}  // namespace snowcar::api
