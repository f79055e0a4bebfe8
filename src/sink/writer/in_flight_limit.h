// SPDX-License-Identifier: Apache-2.0
// The sink's global bound on requests in flight to the instance (snow.sink.max.in.flight).
//
// Each lane sends one request at a time, so lanes alone would put as many requests in flight
// as there are assigned partitions. This limit caps the total across lanes: a request waits
// for a permit, asynchronously (no pool thread blocks), and permits are handed out in the
// order they were asked for, so no lane starves.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <cstdint>
#include <deque>
#include <functional>

#include "snowcar/common/mutex.h"

namespace snowcar::sink {

class InFlightLimit {
 public:
  explicit InFlightLimit(int max_in_flight);

  // Runs `granted` (posted to `executor`) once a permit is held. The caller must Release()
  // exactly once for every grant. Thread-safe.
  void Acquire(boost::asio::any_io_executor executor, std::function<void()> granted);
  // Returns a permit; the oldest waiter, if any, gets it. Thread-safe.
  void Release();

  int max() const { return max_; }
  int in_flight() const;
  // The highest number of permits ever held at once.
  int max_observed() const;
  size_t waiting() const;

 private:
  struct Waiter {
    boost::asio::any_io_executor executor;
    std::function<void()> granted;
  };

  const int max_;
  mutable Mutex mu_;
  int held_ SNOWCAR_GUARDED_BY(mu_) = 0;
  int max_observed_ SNOWCAR_GUARDED_BY(mu_) = 0;
  std::deque<Waiter> waiters_ SNOWCAR_GUARDED_BY(mu_);
};

}  // namespace snowcar::sink
