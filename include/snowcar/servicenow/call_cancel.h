// SPDX-License-Identifier: Apache-2.0
// A caller's way to withdraw the calls it started. The sink gives every call of a lane the
// lane's token and cancels it when a rebalance takes the partition away: from then on no
// attempt of those calls is started, so not one more byte of them reaches the instance. A
// call waiting to retry (a Retry-After, a backoff) ends at once instead of sleeping on; an
// attempt already on the wire is left to finish, and its answer is reported as usual.
//
// A cancelled call ends with class RETRYABLE (it may be sent again by whoever owns the work
// next) and a message saying it was cancelled; it tells nothing about the instance, so it
// neither closes the instance's gate nor counts against its reachability.
//
// Thread-safe: Cancel() from any thread; the client registers and forgets its wake-ups on
// its own strand.
#pragma once

#include <cstdint>
#include <functional>
#include <map>

#include "snowcar/common/mutex.h"

namespace snowcar::servicenow {

class CallCancel {
 public:
  // Idempotent. Runs the registered wake-ups (outside the token's lock).
  void Cancel();
  bool cancelled() const;

  // The client's side: `wake` runs once when the token is cancelled, at once (on the caller's
  // thread) when it already is. Returns an id for Forget; 0 when `wake` already ran.
  uint64_t OnCancel(std::function<void()> wake);
  // Drops a wake-up that is no longer needed (its wait ended). Unknown ids are ignored.
  void Forget(uint64_t id);

 private:
  mutable Mutex mu_;
  bool cancelled_ SNOWCAR_GUARDED_BY(mu_) = false;
  uint64_t next_id_ SNOWCAR_GUARDED_BY(mu_) = 0;
  std::map<uint64_t, std::function<void()>> wakes_ SNOWCAR_GUARDED_BY(mu_);
};

}  // namespace snowcar::servicenow
