// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace snowcar {
namespace {

// `binary` itself when it names a path, else the first executable of that name on PATH.
Result<std::string> Resolve(const std::string& binary) {
  if (binary.empty()) return Status::InvalidArgument("no program to start");
  if (binary.find('/') != std::string::npos) return binary;
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = end > start ? dirs.substr(start, end - start) : ".";
    candidate.append("/").append(binary);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return Status::FailedPrecondition("cannot start '" + binary + "': not found on PATH");
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// In the child, before exec: async-signal-safe calls only. On failure it reports errno on
// `report` and exits 127.
[[noreturn]] void BecomeChild(const SpawnOptions& o, pid_t parent, const char* path,
                              char* const* argv, char* const* envp, int report) {
  int err = 0;
  if (o.process_group >= 0) ::setpgid(0, o.process_group);
  if (o.terminate_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  }
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  for (const int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2}) {
    ::sigaction(s, &defaults, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  const int in = o.stdin_fd >= 0 ? o.stdin_fd : ::open("/dev/null", O_RDONLY);
  if (in < 0 || ::dup2(in, STDIN_FILENO) < 0) err = errno;
  if (err == 0 && o.stdout_fd >= 0 && ::dup2(o.stdout_fd, STDOUT_FILENO) < 0) err = errno;
  if (err == 0 && o.stderr_fd >= 0 && ::dup2(o.stderr_fd, STDERR_FILENO) < 0) err = errno;
  if (err == 0) {
    ::execve(path, argv, envp);
    err = errno;
  }
  while (::write(report, &err, sizeof err) < 0 && errno == EINTR) {
  }
  ::_exit(127);
}

}  // namespace

Result<pid_t> Spawn(const SpawnOptions& options) {
  SNOWCAR_ASSIGN_OR_RETURN(const std::string path, Resolve(options.binary));
  std::vector<std::string> argv_store{options.binary};
  argv_store.insert(argv_store.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv = Pointers(argv_store);
  std::vector<std::string> env_store = options.env.value_or(std::vector<std::string>{});
  std::vector<char*> envp = Pointers(env_store);
  char* const* env = options.env.has_value() ? envp.data() : environ;

  // The child writes errno here when it cannot exec; a successful exec closes it (CLOEXEC),
  // so the parent reads 0 bytes.
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    return Status::Internal(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(report[0]);
    ::close(report[1]);
    return Status::Internal(std::string("fork: ") + std::strerror(err));
  }
  if (pid == 0) {
    BecomeChild(options, parent, path.c_str(), argv.data(), env, report[1]);
  }
  ::close(report[1]);
  if (options.process_group >= 0) {
    // Also from here, so the group exists before anyone relies on it (no race with the
    // child's own setpgid).
    ::setpgid(pid, options.process_group == 0 ? pid : options.process_group);
  }
  int child_errno = 0;
  ssize_t n = 0;
  while ((n = ::read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n > 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return Status::FailedPrecondition("cannot start '" + options.binary +
                                      "': " + std::strerror(child_errno));
  }
  return pid;
}

std::string DescribeWaitStatus(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace snowcar
