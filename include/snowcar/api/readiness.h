// SPDX-License-Identifier: Apache-2.0
// What /v1/health and /v1/ready report. The runtime fills these; the socket only reads them.
//
// Both are thread-safe: components report from their own strands while socket handlers read.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "snowcar/common/mutex.h"

namespace snowcar::api {

// Readiness: false from construction until the runtime says start-up finished (state store
// open, config valid, Kafka and ServiceNow clients built). /v1/ready answers 503 with the
// reason meanwhile, so a Kubernetes probe keeps traffic away until the sidecar can serve.
class Readiness {
 public:
  Readiness();
  // Still starting; `reason` says what is awaited ("opening state store").
  void SetNotReady(std::string reason);
  void MarkReady();
  // A condition checked on every query once MarkReady() was called: it returns "" when
  // satisfied, otherwise what is still awaited ("source: probing 2 of 5 tables"). Lets a
  // direction that finishes starting after Start() returned hold readiness back. Called
  // without mu_ held; must be thread-safe.
  void SetGate(std::function<std::string()> gate);
  // Called once each time readiness turns true (reason "") and each time it turns false again
  // (with the reason), in order, from whichever thread noticed: a query, Refresh(), or
  // SetNotReady(). The gate is only evaluated when asked, so a caller that must learn of a
  // change without a query calls Refresh() periodically. Must not call back into Readiness.
  void SetListener(std::function<void(bool ready, const std::string& reason)> listener);
  // Evaluates readiness now, calling the listener on a change.
  void Refresh() const { (void)reason(); }

  bool ready() const { return reason().empty(); }
  std::string reason() const;  // "" once ready

 private:
  std::string Evaluate() const;
  void Observe(const std::string& reason) const SNOWCAR_REQUIRES(observe_mu_);

  mutable Mutex mu_;
  bool ready_ SNOWCAR_GUARDED_BY(mu_) = false;
  std::string reason_ SNOWCAR_GUARDED_BY(mu_);
  std::function<std::string()> gate_ SNOWCAR_GUARDED_BY(mu_);
  // Serialises evaluation with the listener calls so transitions are reported in order and
  // once each. Taken before mu_, never while holding it.
  mutable Mutex observe_mu_;
  mutable bool observed_ready_ SNOWCAR_GUARDED_BY(observe_mu_) = false;
  std::function<void(bool, const std::string&)> listener_ SNOWCAR_GUARDED_BY(observe_mu_);
};

// Per-component health, by name ("state", "kafka.producer", "source.incident"). A component
// that never reported is simply absent.
class HealthRegistry {
 public:
  struct Component {
    bool ok = true;
    std::string detail;  // why it is not ok, or a short status line
  };

  void Report(const std::string& name, bool ok, std::string detail = {});
  void Remove(const std::string& name);
  std::map<std::string, Component> Snapshot() const;

 private:
  mutable Mutex mu_;
  std::map<std::string, Component> components_ SNOWCAR_GUARDED_BY(mu_);
};

}  // namespace snowcar::api
