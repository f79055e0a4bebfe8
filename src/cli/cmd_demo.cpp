// SPDX-License-Identifier: Apache-2.0
// snowcar demo: the embedded default end to end (`make demo`). The demo is its own module
// (src/demo); this file only forwards to it.
#include "cli/commands.h"
#include "demo/demo.h"

namespace snowcar::cli {

int DemoMain(int argc, char** argv) { return demo::Main(argc, argv); }

}  // namespace snowcar::cli
