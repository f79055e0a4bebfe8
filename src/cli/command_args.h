// SPDX-License-Identifier: Apache-2.0
// The settings some subcommands read from their command line, parsed apart from running the
// command so tests can check what a command line means. Each parser returns nullopt when the
// command should run, else its exit code after printing help to `out` (0) or the refusal to
// `err` (2); `args` are the arguments after the command word.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "demo/options.h"
#include "snowcar/testbed/broker/broker_options.h"

namespace snowcar::cli {

// snowcar broker [--brokers N] [--topics LIST] [--partitions N] [--port-file FILE] ...
struct BrokerArgs {
  broker::BrokerOptions options;
  std::string port_file;
  bool control_stdin = false;
};
std::optional<int> ParseBrokerArgs(const std::vector<std::string>& args, BrokerArgs& parsed,
                                   std::ostream& out, std::ostream& err);

// snowcar demo [--seconds N] [--keep] [--tables t1,t2,...] [--rows N] [--rate N]
std::optional<int> ParseDemoArgs(const std::vector<std::string>& args, demo::Options& options,
                                 std::ostream& out, std::ostream& err);

}  // namespace snowcar::cli
