// SPDX-License-Identifier: Apache-2.0
// The child processes of `snowcar demo`: every one is the demo's own executable with another
// subcommand (emulate, broker, run, state), and all of them share ONE process group that is
// not the demo's. Ctrl-C in a terminal therefore reaches only the demo, which stops the
// children in order (sidecar first, so it can drain into a live broker); a killed demo takes
// them along through PR_SET_PDEATHSIG.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::demo {

struct SpawnSpec {
  std::string name;               // for messages: "emulator", "broker", "sidecar"
  std::vector<std::string> args;  // after the binary: {"emulate", "--port", "0", ...}
  std::string stdout_path;        // both files are created (truncated)
  std::string stderr_path;
};

struct Captured {
  int exit_code = -1;  // -1 when killed by a signal
  std::string output;  // stdout and stderr interleaved, as a terminal would show them
};

// The path of the running executable (/proc/self/exe resolved): the demo starts its
// children from the same `snowcar` binary.
std::string SelfExecutable();

class ProcessGroup {
 public:
  explicit ProcessGroup(std::string binary);
  // SIGKILLs whatever is still running in the group and reaps it: the last line of defence,
  // normally everything was stopped in order before.
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  const std::string& binary() const { return binary_; }
  pid_t pgid() const { return pgid_; }

  Result<pid_t> Spawn(const SpawnSpec& spec);
  // True while `pid` runs; reaps it once it has exited and remembers how (ExitText).
  bool Running(pid_t pid);
  std::string ExitText(pid_t pid) const;  // "exit 0", "signal 9", "running"

  // SIGTERM, then waits up to `grace`; SIGKILL after that. Ok only for a clean exit 0.
  Status Stop(pid_t pid, std::chrono::milliseconds grace);
  // Runs `snowcar <args>` to completion inside the group (killed after `timeout`).
  Result<Captured> Run(const std::vector<std::string>& args, std::chrono::milliseconds timeout);

 private:
  struct Child {
    pid_t pid;
    bool reaped = false;
    int status = 0;
  };
  Result<pid_t> Fork(const std::vector<std::string>& args, int out_fd, int err_fd);
  Child* Find(pid_t pid);
  const Child* Find(pid_t pid) const;

  std::string binary_;
  pid_t pgid_ = 0;  // 0 until the first child starts: it becomes the group leader
  std::vector<Child> children_;
};

// Waits until `path` holds a complete first line and returns it, or fails early when the
// process `pid` exits first (the message then ends with the tail of `stderr_path`).
Result<std::string> WaitFirstLine(ProcessGroup& group, pid_t pid, const std::string& name,
                                  const std::string& path, const std::string& stderr_path,
                                  std::chrono::milliseconds timeout);

// The last `lines` lines of a file ("" when unreadable), to explain a child's failure.
std::string Tail(const std::string& path, int lines);

}  // namespace snowcar::demo
