// SPDX-License-Identifier: Apache-2.0
// Ctrl-C for `snowcar demo`: SIGINT, SIGTERM and SIGHUP are blocked and collected with
// sigtimedwait, so the demo notices them only between its steps (never halfway through a line or
// inside librdkafka) and can then stop its children in order and clean up.
#pragma once

#include <signal.h>

#include <chrono>

namespace snowcar::demo {

class StopSignal {
 public:
  // Blocks SIGINT, SIGTERM and SIGHUP in the calling thread; threads started afterwards inherit the
  // mask, so only Wait() ever receives them. Construct before any thread starts.
  StopSignal();

  // Waits up to `duration` for a stop signal. False once one has arrived (now or before).
  bool Wait(std::chrono::milliseconds duration);
  bool stopped() const { return signal_ != 0; }
  const char* name() const;  // "SIGINT", "SIGTERM", "SIGHUP" or "" before any

 private:
  sigset_t set_;
  int signal_ = 0;
};

}  // namespace snowcar::demo
