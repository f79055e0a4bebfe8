// SPDX-License-Identifier: Apache-2.0
// Entry points of the `snowcar` subcommands. main.cpp only dispatches; each command lives in
// its own file and returns the process exit code (0 ok, 1 runtime failure, 2 usage error).
#pragma once

namespace snowcar::cli {

// argv[0] is the subcommand name ("run", "config", ...); the rest are its arguments.
int RunMain(int argc, char** argv);       // snowcar run --config FILE [--set k=v]...
int ConfigMain(int argc, char** argv);    // snowcar config check|print|docs ...
int StateMain(int argc, char** argv);     // snowcar state health|ready|cursors|dedup|...
int EmulateMain(int argc, char** argv);   // snowcar emulate --port P --tables t:n,...
int RegistryMain(int argc, char** argv);  // snowcar registry --port P
int BrokerMain(int argc, char** argv);    // snowcar broker --brokers N --topics a,b
int DemoMain(int argc, char** argv);      // snowcar demo [--seconds N] [--keep]

}  // namespace snowcar::cli
