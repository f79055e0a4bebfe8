// SPDX-License-Identifier: Apache-2.0
#include "in_flight_limit.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <optional>

namespace snowcar::sink {

InFlightLimit::InFlightLimit(int max_in_flight) : max_(std::max(1, max_in_flight)) {}

InFlightLimit::~InFlightLimit() {
  std::deque<Waiter> waiters;
  {
    MutexLock lock(mu_);
    waiters.swap(waiters_);
  }
  for (auto& w : waiters) {
    if (w.cancel_wake != 0) w.cancel->Forget(w.cancel_wake);
  }
}

void InFlightLimit::Acquire(boost::asio::any_io_executor executor, std::function<void()> granted,
                            const std::shared_ptr<servicenow::CallCancel>& cancel,
                            std::function<void()> withdrawn) {
  if (cancel != nullptr && cancel->cancelled()) {
    if (withdrawn) boost::asio::post(executor, std::move(withdrawn));
    return;
  }
  Waiter waiter{0, std::move(executor), std::move(granted), cancel, std::move(withdrawn), 0};
  std::optional<Waiter> now;
  uint64_t id = 0;
  {
    MutexLock lock(mu_);
    if (held_ < max_ && waiters_.empty()) {
      ++held_;
      max_observed_ = std::max(max_observed_, held_);
      now = std::move(waiter);
    } else {
      id = ++last_id_;
      waiter.id = id;
      waiters_.push_back(std::move(waiter));
    }
  }
  if (now) {
    boost::asio::post(now->executor, std::move(now->granted));
    return;
  }
  if (cancel == nullptr) return;
  // Registered outside the lock: a token already cancelled runs the wake-up right here.
  const uint64_t wake = cancel->OnCancel([this, id] { Withdraw(id); });
  if (wake == 0) return;
  {
    MutexLock lock(mu_);
    auto it = std::find_if(waiters_.begin(), waiters_.end(),
                           [id](const Waiter& w) { return w.id == id; });
    if (it != waiters_.end()) {
      it->cancel_wake = wake;
      return;
    }
  }
  cancel->Forget(wake);  // granted (or withdrawn) meanwhile: the wake-up is not needed
}

void InFlightLimit::Withdraw(uint64_t id) {
  Waiter gone;
  {
    MutexLock lock(mu_);
    auto it = std::find_if(waiters_.begin(), waiters_.end(),
                           [id](const Waiter& w) { return w.id == id; });
    if (it == waiters_.end()) return;  // granted first: its call reports the cancel itself
    gone = std::move(*it);
    waiters_.erase(it);
  }
  if (gone.withdrawn) boost::asio::post(gone.executor, std::move(gone.withdrawn));
}

void InFlightLimit::Release() {
  Waiter next;
  {
    MutexLock lock(mu_);
    if (waiters_.empty()) {
      if (held_ > 0) --held_;
      return;
    }
    // The permit passes straight to the oldest waiter: held_ stays the same.
    next = std::move(waiters_.front());
    waiters_.pop_front();
  }
  if (next.cancel_wake != 0) next.cancel->Forget(next.cancel_wake);
  boost::asio::post(next.executor, std::move(next.granted));
}

int InFlightLimit::in_flight() const {
  MutexLock lock(mu_);
  return held_;
}

int InFlightLimit::max_observed() const {
  MutexLock lock(mu_);
  return max_observed_;
}

size_t InFlightLimit::waiting() const {
  MutexLock lock(mu_);
  return waiters_.size();
}

}  // namespace snowcar::sink
