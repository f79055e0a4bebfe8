// SPDX-License-Identifier: Apache-2.0
// Runs a program (usually the built `snowcar` binary) as a real child process for black-box
// tests: arguments and environment in, stdout lines out, signals and exit status back.
//
// A reader thread drains the child's stdout (and stderr, when captured) all the time, so a
// chatty child never blocks on a full pipe while the test is busy elsewhere.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::testsupport {

struct ChildOptions {
  std::vector<std::string> args{};  // argv[1..]; argv[0] is the binary path
  // Set on top of the test's own environment (or alone when inherit_env is false). POD_NAME
  // is never inherited (it would make every sidecar the same static group member).
  std::vector<std::pair<std::string, std::string>> env{};
  bool inherit_env = true;
  // Captured stderr is readable with Stderr(); otherwise it goes to the test's stderr, which
  // ctest keeps in its log.
  bool capture_stderr = false;
  // Give the child a pipe on stdin (WriteStdin/CloseStdin); otherwise stdin is /dev/null.
  bool pipe_stdin = false;
};

struct ExitStatus {
  bool exited = false;  // normal exit: `code` is valid
  int code = -1;
  int signal = 0;  // killed by this signal when !exited
  bool ok() const { return exited && code == 0; }
  std::string ToString() const;  // "exit 0", "signal 9"
};

class ChildProcess {
 public:
  // Starts `binary` (a path, or a name looked up on PATH). Fails if it cannot be started.
  static Result<std::unique_ptr<ChildProcess>> Spawn(const std::string& binary,
                                                     const ChildOptions& options);
  // Kills the child with SIGKILL if it is still running, then reaps it.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

  // The next complete stdout line (without '\n'). DeadlineExceeded when none arrives in time,
  // FailedPrecondition when stdout closed first (the message holds what stderr captured).
  Result<std::string> ReadLine(std::chrono::milliseconds timeout);
  // Stdout not yet returned by ReadLine, complete lines or not; consumes it.
  std::string TakeStdout();
  // Everything captured on stderr so far (empty unless capture_stderr).
  std::string Stderr() const;

  Status WriteStdin(std::string_view data);
  void CloseStdin();

  Status Signal(int signo);
  // Waits for the child to exit. DeadlineExceeded if it is still running after `timeout`
  // (it is left running; the destructor kills it).
  Result<ExitStatus> Wait(std::chrono::milliseconds timeout);
  // Waits until stdout is closed (the child exited or closed it) and returns all unread output.
  Result<std::string> ReadAllStdout(std::chrono::milliseconds timeout);
  // Waits until both stdout and stderr are closed and drained, so Stderr() is complete.
  bool WaitStreamsDrained(std::chrono::milliseconds timeout);

 private:
  ChildProcess() = default;
  void ReaderLoop(int out_fd, int err_fd);

  pid_t pid_ = -1;
  bool reaped_ = false;
  ExitStatus exit_;
  int stdin_fd_ = -1;
  std::thread reader_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::string out_;  // unread stdout
  std::string err_;
  bool out_closed_ = false;
  bool streams_drained_ = false;  // the reader thread has seen EOF on every stream
};

// Runs a program to completion: its exit status, stdout and stderr. For short-lived tools
// (kcat, `snowcar config check`). DeadlineExceeded (child killed) if it runs past `timeout`.
struct RunResult {
  ExitStatus status;
  std::string out;
  std::string err;
};
Result<RunResult> RunToCompletion(const std::string& binary, const ChildOptions& options,
                                  std::chrono::milliseconds timeout, std::string_view input = {});

// kcat reading all of `topic` now: from the beginning to the end of each partition, quietly,
// printing `format` (kcat's -f) per record. `extra` flags go before -f (e.g. "-Z", or "-X"
// with a librdkafka property).
Result<RunResult> ReadTopicWithKcat(const std::string& bootstrap, const std::string& topic,
                                    const std::string& format, std::chrono::milliseconds timeout,
                                    const std::vector<std::string>& extra = {});

// The non-empty lines of a process's output, in order.
std::vector<std::string> Lines(const std::string& text);

}  // namespace snowcar::testsupport
