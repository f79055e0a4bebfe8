// SPDX-License-Identifier: Apache-2.0
// How the test doubles' commands (`snowcar emulate`, `snowcar registry`) wait to be stopped:
// SIGTERM, SIGINT or SIGHUP (a closed terminal stops them as Ctrl-C does), received by
// sigwait on the main thread only.
#pragma once

#include <csignal>
#include <string>

namespace snowcar::cli {

// Blocks the stop signals in the calling thread and returns them. Call it before any thread
// starts, so every thread inherits the mask and only the sigwait of ServeUntilStopped sees them.
sigset_t BlockStopSignals();

// Prints `base_url` as the first line on stdout (flushed: scripts and tests that started the
// double with port 0 read where it listens), waits for one of `stop`, and logs `event` naming
// the signal. The caller stops its server afterwards.
void ServeUntilStopped(const std::string& base_url, const sigset_t& stop, const char* event);

}  // namespace snowcar::cli
