// SPDX-License-Identifier: Apache-2.0
#include "cli/stop_signals.h"

#include <pthread.h>

#include <cstdio>

#include "snowcar/common/log.h"

namespace snowcar::cli {

sigset_t BlockStopSignals() {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  return stop;
}

void ServeUntilStopped(const std::string& base_url, const sigset_t& stop, const char* event) {
  std::printf("%s\n", base_url.c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  SNOWCAR_LOG(kInfo, event,
              {{"signal", sig == SIGTERM  ? "SIGTERM"
                          : sig == SIGINT ? "SIGINT"
                                          : "SIGHUP"}});
}

}  // namespace snowcar::cli
