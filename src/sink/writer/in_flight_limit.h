// SPDX-License-Identifier: Apache-2.0
// The sink's global bound on requests in flight to the instance (snow.sink.max.in.flight).
//
// Each lane sends one request at a time, so lanes alone would put as many requests in flight
// as there are assigned partitions. This limit caps the total across lanes: a request waits
// for a permit, asynchronously (no pool thread blocks), and permits are handed out in the
// order they were asked for, so no lane starves.
//
// A request whose call is withdrawn (its CallCancel cancelled: a revoke) while it waits for a
// permit leaves the queue at once, without a permit: it is never sent, and its lane need not
// wait for some other request to finish before the revoke can hand the partition over.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>

#include "snowcar/common/mutex.h"
#include "snowcar/servicenow/call_cancel.h"

namespace snowcar::sink {

class InFlightLimit {
 public:
  explicit InFlightLimit(int max_in_flight);
  // Outlives every request it queued (the sink stops its lanes first): a cancel token that
  // outlives the limit holds no wake-up of it afterwards.
  ~InFlightLimit();
  InFlightLimit(const InFlightLimit&) = delete;
  InFlightLimit& operator=(const InFlightLimit&) = delete;

  // Runs `granted` (posted to `executor`) once a permit is held. The caller must Release()
  // exactly once for every grant. When `cancel` is (or gets) cancelled before the grant,
  // runs `withdrawn` instead (posted to `executor`), holding no permit. Exactly one of the
  // two runs. Thread-safe.
  void Acquire(boost::asio::any_io_executor executor, std::function<void()> granted,
               const std::shared_ptr<servicenow::CallCancel>& cancel = nullptr,
               std::function<void()> withdrawn = nullptr);
  // Returns a permit; the oldest waiter, if any, gets it. Thread-safe.
  void Release();

  int max() const { return max_; }
  int in_flight() const;
  // The highest number of permits ever held at once.
  int max_observed() const;
  size_t waiting() const;

 private:
  struct Waiter {
    uint64_t id = 0;
    boost::asio::any_io_executor executor;
    std::function<void()> granted;
    std::shared_ptr<servicenow::CallCancel> cancel;
    std::function<void()> withdrawn;
    uint64_t cancel_wake = 0;  // the token's id for our wake-up; 0: none registered
  };

  // The token of waiter `id` was cancelled: it leaves the queue, if still there.
  void Withdraw(uint64_t id);

  const int max_;
  mutable Mutex mu_;
  int held_ SNOWCAR_GUARDED_BY(mu_) = 0;
  int max_observed_ SNOWCAR_GUARDED_BY(mu_) = 0;
  uint64_t last_id_ SNOWCAR_GUARDED_BY(mu_) = 0;
  std::deque<Waiter> waiters_ SNOWCAR_GUARDED_BY(mu_);
};

}  // namespace snowcar::sink
