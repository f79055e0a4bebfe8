// SPDX-License-Identifier: Apache-2.0
// One gate per instance, so that an instance that cannot be used pauses everything at once.
//
// When a call ends because of the instance itself (no connection, TLS, an unresolvable
// name, credentials refused after a fresh token: docs/outcomes.md, "pause"), the client
// closes the gate. Every lane and poller of the instance then waits at it instead of sending
// on its own back-off, and new work waits before it is sent. ONE probe (a GET of one row of
// the table the failing call was for) goes out after a growing wait until the instance
// answers; then the gate opens and every waiter resumes at once. Any other answer of the
// instance (a call that was already in flight) opens it as well.
//
// Health stays with InstanceReachability (component `servicenow`): the gate decides who
// waits, not what is reported. Thread-safe.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace snowcar::servicenow {

class InstanceGate : public std::enable_shared_from_this<InstanceGate> {
 public:
  // Sends one probe of `target` and calls `done(true)` when the instance answered it (any
  // answer that is not about the whole instance), `done(false)` otherwise.
  using Prober = std::function<void(const std::string& target, std::function<void(bool)> done)>;

  // `executor` runs the probe timer; the wait before a probe starts at `initial_ms` and
  // doubles up to `max_ms`.
  InstanceGate(boost::asio::any_io_executor executor, Prober prober, int64_t initial_ms,
               int64_t max_ms);

  // The client: a call ended instance-wide; `request_target` is what it was sent to. The
  // first close starts the probes.
  void Close(const std::string& reason, const std::string& request_target);
  // The client: the instance answered.
  void Open();
  bool IsOpen() const;

  // Runs `resume` on `executor` once the gate is open (posted at once when it is open now).
  // Waiters are dropped by Stop(): a waiter that stops waits on its own timer as well.
  void WhenOpen(boost::asio::any_io_executor executor, std::function<void()> resume);

  struct View {
    bool open = true;
    std::string reason;  // why it closed (empty when open)
    int64_t closes = 0;  // times it closed
    int64_t probes = 0;  // probes sent since it last closed
    size_t waiters = 0;  // lanes and pollers waiting now
  };
  View Read() const;

  // No more probes; waiters are dropped without being run. Idempotent.
  void Stop();

  // "/api/now/table/incident?sysparm_limit=1&sysparm_fields=sys_id" for a request to any
  // path of the incident table (versioned paths too); the path itself for anything else.
  static std::string ProbeTarget(const std::string& request_target);

 private:
  void ArmProbe();  // REQUIRES: mu_ held
  void Probe();

  struct Waiter {
    boost::asio::any_io_executor executor;
    std::function<void()> resume;
  };

  const Prober prober_;
  const int64_t initial_ms_;
  const int64_t max_ms_;
  mutable std::mutex mu_;
  boost::asio::steady_timer timer_;  // GUARDED_BY(mu_)
  bool open_ = true;
  bool stopped_ = false;
  bool probing_ = false;  // a probe is in flight or its timer armed
  int64_t wait_ms_ = 0;
  std::string reason_;
  std::string probe_target_;
  int64_t closes_ = 0;
  int64_t probes_ = 0;
  std::vector<Waiter> waiters_;
};

}  // namespace snowcar::servicenow
