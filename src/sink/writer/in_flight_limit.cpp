// SPDX-License-Identifier: Apache-2.0
#include "in_flight_limit.h"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace snowcar::sink {

InFlightLimit::InFlightLimit(int max_in_flight) : max_(std::max(1, max_in_flight)) {}

void InFlightLimit::Acquire(boost::asio::any_io_executor executor, std::function<void()> granted) {
  {
    MutexLock lock(mu_);
    if (held_ >= max_ || !waiters_.empty()) {
      waiters_.push_back(Waiter{std::move(executor), std::move(granted)});
      return;
    }
    ++held_;
    max_observed_ = std::max(max_observed_, held_);
  }
  boost::asio::post(executor, std::move(granted));
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
