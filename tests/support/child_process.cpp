// SPDX-License-Identifier: Apache-2.0
#include "support/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include "snowcar/common/spawn.h"

extern char** environ;  // BuildEnv copies it

namespace snowcar::testsupport {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// KEY=VALUE strings: the inherited environment (if asked) with the overrides applied.
std::vector<std::string> BuildEnv(const ChildOptions& options) {
  std::map<std::string, std::string> vars;
  if (options.inherit_env) {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const std::string entry(*e);
      const size_t eq = entry.find('=');
      if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    // A test machine that is itself a pod must not hand its own name to every sidecar a test
    // starts: they would all be one static group member (kafka.group.instance.id) and fence
    // each other. A test that wants POD_NAME sets it in `env`.
    vars.erase("POD_NAME");
  }
  for (const auto& [k, v] : options.env) vars[k] = v;
  std::vector<std::string> out;
  out.reserve(vars.size());
  for (const auto& [k, v] : vars) out.emplace_back(k).append("=").append(v);
  return out;
}

struct Pipe {
  int fds[2] = {-1, -1};
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  int Release(int i) {
    int fd = fds[i];
    fds[i] = -1;
    return fd;
  }
};

}  // namespace

std::string ExitStatus::ToString() const {
  if (exited) return "exit " + std::to_string(code);
  return "signal " + std::to_string(signal);
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::Spawn(const std::string& binary,
                                                          const ChildOptions& options) {
  // Writing to the stdin of a child that already exited must be an error, not a SIGPIPE that
  // kills the whole test binary.
  static const bool sigpipe_ignored = [] { return ::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)sigpipe_ignored;
  Pipe out, err, in;
  if (::pipe2(out.fds, O_CLOEXEC) != 0) return Status::Internal(Errno("pipe"));
  if (options.capture_stderr && ::pipe2(err.fds, O_CLOEXEC) != 0) {
    return Status::Internal(Errno("pipe"));
  }
  if (options.pipe_stdin && ::pipe2(in.fds, O_CLOEXEC) != 0) return Status::Internal(Errno("pipe"));

  // The one spawn of the product (common/spawn.h): default signal actions and an empty mask
  // in the child, whatever this test process did (it ignores SIGPIPE, see above; librdkafka
  // threads block signals).
  SpawnOptions spawn;
  spawn.binary = binary;
  spawn.args = options.args;
  spawn.env = BuildEnv(options);
  spawn.stdin_fd = options.pipe_stdin ? in.fds[0] : -1;
  spawn.stdout_fd = out.fds[1];
  spawn.stderr_fd = options.capture_stderr ? err.fds[1] : -1;
  SNOWCAR_ASSIGN_OR_RETURN(const pid_t pid, snowcar::Spawn(spawn));

  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  // Close the child's ends here so we see EOF when the child exits.
  ::close(out.Release(1));
  if (options.capture_stderr) ::close(err.Release(1));
  if (options.pipe_stdin) {
    ::close(in.Release(0));
    child->stdin_fd_ = in.Release(1);
  }
  const int out_fd = out.Release(0);
  const int err_fd = options.capture_stderr ? err.Release(0) : -1;
  child->reader_ =
      std::thread([c = child.get(), out_fd, err_fd] { c->ReaderLoop(out_fd, err_fd); });
  return child;
}

void ChildProcess::ReaderLoop(int out_fd, int err_fd) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  char buf[4096];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      std::lock_guard<std::mutex> lock(mu_);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;  // poll ignores negative fds
        if (i == 0) out_closed_ = true;
      } else {
        (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(n));
      }
      cv_.notify_all();
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  out_closed_ = true;
  streams_drained_ = true;
  cv_.notify_all();
}

bool ChildProcess::WaitStreamsDrained(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return streams_drained_; });
}

Result<std::string> ChildProcess::ReadLine(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  size_t nl = std::string::npos;
  const bool got = cv_.wait_for(lock, timeout, [&] {
    nl = out_.find('\n');
    return nl != std::string::npos || out_closed_;
  });
  if (nl != std::string::npos) {
    std::string line = out_.substr(0, nl);
    out_.erase(0, nl + 1);
    return line;
  }
  if (!got) {
    return Status::DeadlineExceeded("no stdout line from pid " + std::to_string(pid_) + " within " +
                                    std::to_string(timeout.count()) + " ms");
  }
  return Status::FailedPrecondition("stdout of pid " + std::to_string(pid_) +
                                    " closed before a full line; partial: '" + out_ +
                                    "'; stderr: '" + err_ + "'");
}

std::string ChildProcess::TakeStdout() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(out_, {});
}

std::string ChildProcess::Stderr() const {
  std::lock_guard<std::mutex> lock(mu_);
  return err_;
}

Status ChildProcess::WriteStdin(std::string_view data) {
  if (stdin_fd_ < 0) return Status::FailedPrecondition("child stdin is not a pipe (or closed)");
  while (!data.empty()) {
    const ssize_t n = ::write(stdin_fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::Unavailable(Errno("write to child stdin"));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

void ChildProcess::CloseStdin() {
  if (stdin_fd_ >= 0) ::close(stdin_fd_);
  stdin_fd_ = -1;
}

Status ChildProcess::Signal(int signo) {
  if (reaped_) return Status::FailedPrecondition("pid " + std::to_string(pid_) + " already exited");
  if (::kill(pid_, signo) != 0) return Status::Internal(Errno("kill " + std::to_string(pid_)));
  return Status::Ok();
}

Result<ExitStatus> ChildProcess::Wait(std::chrono::milliseconds timeout) {
  if (reaped_) return exit_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int wstatus = 0;
    const pid_t r = ::waitpid(pid_, &wstatus, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      if (WIFEXITED(wstatus)) {
        exit_.exited = true;
        exit_.code = WEXITSTATUS(wstatus);
      } else if (WIFSIGNALED(wstatus)) {
        exit_.signal = WTERMSIG(wstatus);
      }
      return exit_;
    }
    if (r < 0 && errno != EINTR) return Status::Internal(Errno("waitpid"));
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::DeadlineExceeded("pid " + std::to_string(pid_) + " still running after " +
                                      std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

Result<std::string> ChildProcess::ReadAllStdout(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return out_closed_; })) {
    return Status::DeadlineExceeded("stdout of pid " + std::to_string(pid_) + " still open after " +
                                    std::to_string(timeout.count()) + " ms");
  }
  return std::exchange(out_, {});
}

ChildProcess::~ChildProcess() {
  CloseStdin();
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int wstatus = 0;
    while (::waitpid(pid_, &wstatus, 0) < 0 && errno == EINTR) {
    }
  }
  // Grandchildren holding the pipe open would block the reader forever; detach in that case.
  std::unique_lock<std::mutex> lock(mu_);
  const bool closed = cv_.wait_for(lock, std::chrono::seconds(5), [&] { return out_closed_; });
  lock.unlock();
  if (reader_.joinable()) {
    if (closed) {
      reader_.join();
    } else {
      reader_.detach();
    }
  }
}

Result<RunResult> RunToCompletion(const std::string& binary, const ChildOptions& options,
                                  std::chrono::milliseconds timeout, std::string_view input) {
  ChildOptions opts = options;
  opts.capture_stderr = true;
  opts.pipe_stdin = true;
  SNOWCAR_ASSIGN_OR_RETURN(auto child, ChildProcess::Spawn(binary, opts));
  SNOWCAR_RETURN_IF_ERROR(child->WriteStdin(input));
  child->CloseStdin();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto out = child->ReadAllStdout(timeout);
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  auto status = child->Wait(std::max(left, std::chrono::milliseconds(100)));
  // stdout can close before the last stderr bytes are read: wait for the reader to drain both.
  const bool drained = child->WaitStreamsDrained(std::chrono::milliseconds(2000));
  if (!out.ok() || !status.ok() || !drained) {
    return Status::DeadlineExceeded("'" + binary + "' did not finish within " +
                                    std::to_string(timeout.count()) +
                                    " ms; stderr: " + child->Stderr());
  }
  return RunResult{*status, std::move(out).value(), child->Stderr()};
}

Result<RunResult> ReadTopicWithKcat(const std::string& bootstrap, const std::string& topic,
                                    const std::string& format, std::chrono::milliseconds timeout,
                                    const std::vector<std::string>& extra) {
  ChildOptions opts;
  opts.args = {"-b", bootstrap, "-C", "-t", topic, "-o", "beginning", "-e", "-q"};
  opts.args.insert(opts.args.end(), extra.begin(), extra.end());
  opts.args.insert(opts.args.end(), {"-f", format});
  opts.capture_stderr = true;
  return RunToCompletion("kcat", opts, timeout);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

}  // namespace snowcar::testsupport
