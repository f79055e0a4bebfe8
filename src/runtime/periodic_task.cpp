// SPDX-License-Identifier: Apache-2.0
#include "periodic_task.h"

#include <boost/asio/steady_timer.hpp>
#include <mutex>

namespace snowcar::runtime {

struct PeriodicTask::State : std::enable_shared_from_this<State> {
  State(boost::asio::io_context& io, std::chrono::milliseconds every, std::function<void()> f)
      : timer(io), interval(every), action(std::move(f)) {}

  void Arm() {
    std::lock_guard lock(mu);
    if (stopped) return;
    timer.expires_after(interval);
    timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      {
        std::lock_guard lock(self->mu);
        if (self->stopped) return;
      }
      self->action();
      self->Arm();
    });
  }

  std::mutex mu;  // Stop() runs off the pool while Arm() runs on it
  boost::asio::steady_timer timer;
  std::chrono::milliseconds interval;
  std::function<void()> action;
  bool stopped = false;
};

PeriodicTask::PeriodicTask(boost::asio::io_context& io, std::chrono::milliseconds interval,
                           std::function<void()> action)
    : state_(std::make_shared<State>(io, interval, std::move(action))) {}

PeriodicTask::~PeriodicTask() { Stop(); }

void PeriodicTask::Start() {
  if (state_->interval.count() > 0) state_->Arm();
}

void PeriodicTask::Stop() {
  std::lock_guard lock(state_->mu);
  state_->stopped = true;
  state_->timer.cancel();
}

}  // namespace snowcar::runtime
