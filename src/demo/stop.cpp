// SPDX-License-Identifier: Apache-2.0
#include "demo/stop.h"

#include <cerrno>
#include <ctime>

namespace snowcar::demo {

StopSignal::StopSignal() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  sigaddset(&set_, SIGHUP);  // the terminal went away: stop the children just as for Ctrl-C
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
}

bool StopSignal::Wait(std::chrono::milliseconds duration) {
  if (stopped()) return false;
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() < 0) return true;
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(left.count() / 1'000'000'000);
    ts.tv_nsec = static_cast<long>(left.count() % 1'000'000'000);
    const int sig = sigtimedwait(&set_, nullptr, &ts);
    if (sig > 0) {
      signal_ = sig;
      return false;
    }
    if (errno == EAGAIN) return true;
    // EINTR (another signal, e.g. SIGCHLD with a handler): wait out the rest.
  }
}

const char* StopSignal::name() const {
  if (signal_ == SIGINT) return "SIGINT";
  if (signal_ == SIGTERM) return "SIGTERM";
  if (signal_ == SIGHUP) return "SIGHUP";
  return "";
}

}  // namespace snowcar::demo
