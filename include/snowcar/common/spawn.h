// SPDX-License-Identifier: Apache-2.0
// Starting a child process: the one fork/exec of the product and its tests (the demo's
// children, the test suite's black-box runs of the `snowcar` binary).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar {

struct SpawnOptions {
  std::string binary{};             // a path, or a name looked up on PATH
  std::vector<std::string> args{};  // argv[1..]; argv[0] is `binary`
  // KEY=VALUE entries; nullopt: this process's environment.
  std::optional<std::vector<std::string>> env{};
  // The child's standard streams: -1 means stdin from /dev/null, stdout and stderr inherited.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // -1: stay in this process's group; 0: lead a new group; > 0: join that group. Set from
  // both sides, so the group exists when Spawn returns.
  pid_t process_group = -1;
  // The child gets SIGTERM when this process dies (PR_SET_PDEATHSIG), so a parent killed with
  // SIGKILL takes its children along.
  bool terminate_with_parent = false;
};

// Starts the child with the default action for the signals a parent commonly changes (PIPE,
// TERM, INT, HUP, CHLD, USR1, USR2) and no blocked signals, whatever this process did. Fails
// (kFailedPrecondition naming the binary and the reason) when the binary cannot be executed;
// the caller then has no child to reap. Between fork and exec only async-signal-safe calls
// run: everything else is prepared before, so it is safe in a process with threads.
Result<pid_t> Spawn(const SpawnOptions& options);

// How a child ended, from a waitpid status: "exit 0", "signal 9".
std::string DescribeWaitStatus(int status);

}  // namespace snowcar
