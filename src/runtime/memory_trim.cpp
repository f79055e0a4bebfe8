// SPDX-License-Identifier: Apache-2.0
#include "memory_trim.h"

#include <malloc.h>

#include <mutex>

namespace snowcar::runtime {

struct MemoryTrimmer::State : std::enable_shared_from_this<State> {
  State(boost::asio::io_context& io, std::chrono::milliseconds every)
      : timer(io), interval(every) {}

  void Arm() {
    std::lock_guard lock(mu);
    if (stopped) return;
    timer.expires_after(interval);
    timer.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec) return;
      malloc_trim(0);
      self->Arm();
    });
  }

  std::mutex mu;  // Stop() runs off the pool while Arm() runs on it
  boost::asio::steady_timer timer;
  std::chrono::milliseconds interval;
  bool stopped = false;
};

MemoryTrimmer::MemoryTrimmer(boost::asio::io_context& io, std::chrono::milliseconds interval)
    : state_(std::make_shared<State>(io, interval)) {}

MemoryTrimmer::~MemoryTrimmer() { Stop(); }

void MemoryTrimmer::Start() {
  if (state_->interval.count() > 0) state_->Arm();
}

void MemoryTrimmer::Stop() {
  std::lock_guard lock(state_->mu);
  state_->stopped = true;
  state_->timer.cancel();
}

}  // namespace snowcar::runtime
