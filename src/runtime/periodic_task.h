// SPDX-License-Identifier: Apache-2.0
// Runs an action on the pool every `interval` until stopped.
//
// The sidecar uses it to re-evaluate readiness (so `sidecar.ready` is logged when /v1/ready
// turns 200, not when start-up returns), where the conditions are polled rather than pushed.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>

namespace snowcar::runtime {

class PeriodicTask {
 public:
  PeriodicTask(boost::asio::io_context& io, std::chrono::milliseconds interval,
               std::function<void()> action);
  ~PeriodicTask();
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  void Start();
  // Cancels the pending wait, so the pool can drain; call before stopping the pool. An action
  // already running finishes.
  void Stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace snowcar::runtime
