// SPDX-License-Identifier: Apache-2.0
// snowcar demo: the embedded default end to end, in one command (`make demo`).
//
// Starts the emulator (a few tables and its live writer), the embedded broker and one sidecar
// with both directions, all children of this executable in one process group; produces a few
// commands for the sink; prints progress read from the sidecar's socket every second; runs
// `snowcar state ...`; restarts the sidecar on the same state.dir and counts, from what Kafka
// holds, how many row versions the restart emitted a second time. Stops on Ctrl-C/SIGTERM or
// after --seconds, stopping the children in order and removing its work directory.
//
// The demo is a module of its own (src/demo, snowcar::demo) that shows the product's parts:
// it drives the children through the `snowcar` binary, talks to Kafka with the kafka module
// and to the sidecar with the socket client. `snowcar demo` (cli/cmd_demo.cpp) only forwards.
#pragma once

#include "demo/options.h"

namespace snowcar::demo {

// Runs the demo with options parsed from `snowcar demo [--seconds N] [--keep] ...`. Returns
// the exit code: 0 when everything worked and the restart re-emitted nothing, 1 on a failure.
int Main(const Options& options);

}  // namespace snowcar::demo
