// SPDX-License-Identifier: Apache-2.0
#include "demo/processes.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <sstream>
#include <thread>

#include "snowcar/common/file_read.h"
#include "snowcar/common/spawn.h"

namespace snowcar::demo {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Short polls: a child's exit or a file's first line is seen within this.
constexpr auto kPollStep = 20ms;

}  // namespace

ProcessGroup::ProcessGroup(std::string binary) : binary_(std::move(binary)) {}

ProcessGroup::~ProcessGroup() {
  bool any = false;
  for (const auto& c : children_) any = any || !c.reaped;
  if (!any) return;
  if (pgid_ > 0) ::kill(-pgid_, SIGKILL);
  for (auto& c : children_) {
    if (c.reaped) continue;
    ::kill(c.pid, SIGKILL);  // in case it never made it into the group
    int status = 0;
    if (::waitpid(c.pid, &status, 0) == c.pid) {
      c.reaped = true;
      c.status = status;
    }
  }
}

Result<pid_t> ProcessGroup::Fork(const std::vector<std::string>& args, int out_fd, int err_fd) {
  SpawnOptions options;
  options.binary = binary_;
  options.args = args;
  options.stdout_fd = out_fd;
  options.stderr_fd = err_fd;
  options.process_group = pgid_;  // 0 until the first child, which then leads the group
  // The demo may die without stopping its children (kill -9): then they get SIGTERM too.
  options.terminate_with_parent = true;
  SNOWCAR_ASSIGN_OR_RETURN(const pid_t pid, snowcar::Spawn(options));
  if (pgid_ == 0) pgid_ = pid;
  children_.push_back(Child{pid});
  return pid;
}

Result<pid_t> ProcessGroup::Spawn(const SpawnSpec& spec) {
  const int out = ::open(spec.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int err = ::open(spec.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0 || err < 0) {
    if (out >= 0) ::close(out);
    if (err >= 0) ::close(err);
    return Status::PermissionDenied("cannot create the log files of the " + spec.name + " in " +
                                    spec.stdout_path);
  }
  auto pid = Fork(spec.args, out, err);
  ::close(out);
  ::close(err);
  if (!pid.ok())
    return Status::Internal("cannot start the " + spec.name + ": " + pid.status().message());
  return pid;
}

ProcessGroup::Child* ProcessGroup::Find(pid_t pid) {
  for (auto& c : children_) {
    if (c.pid == pid) return &c;
  }
  return nullptr;
}

const ProcessGroup::Child* ProcessGroup::Find(pid_t pid) const {
  for (const auto& c : children_) {
    if (c.pid == pid) return &c;
  }
  return nullptr;
}

bool ProcessGroup::Running(pid_t pid) {
  Child* c = Find(pid);
  if (c == nullptr || c->reaped) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid, &status, WNOHANG);
  if (r == 0) return true;
  c->reaped = true;
  c->status = r == pid ? status : 0;
  return false;
}

std::string ProcessGroup::ExitText(pid_t pid) const {
  const Child* c = Find(pid);
  if (c == nullptr) return "unknown";
  return c->reaped ? DescribeWaitStatus(c->status) : "running";
}

Status ProcessGroup::Stop(pid_t pid, std::chrono::milliseconds grace) {
  if (Running(pid)) {
    ::kill(pid, SIGTERM);
    const auto deadline = Clock::now() + grace;
    while (Running(pid) && Clock::now() < deadline) std::this_thread::sleep_for(kPollStep);
    if (Running(pid)) {
      ::kill(pid, SIGKILL);
      while (Running(pid)) std::this_thread::sleep_for(kPollStep);
      return Status::DeadlineExceeded("did not stop within " + std::to_string(grace.count()) +
                                      " ms of SIGTERM; killed");
    }
  }
  const Child* c = Find(pid);
  if (c == nullptr) return Status::NotFound("no such child " + std::to_string(pid));
  if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0) {
    return Status::Internal("ended with " + DescribeWaitStatus(c->status));
  }
  return Status::Ok();
}

Result<Captured> ProcessGroup::Run(const std::vector<std::string>& args,
                                   std::chrono::milliseconds timeout) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return Status::Internal(std::string("pipe: ") + std::strerror(errno));
  auto pid = Fork(args, fds[1], fds[1]);
  ::close(fds[1]);
  if (!pid.ok()) {
    ::close(fds[0]);
    return pid.status();
  }
  Captured result;
  const auto deadline = Clock::now() + timeout;
  bool open = true;
  while (open && Clock::now() < deadline) {
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) {
      result.output.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      open = false;
    }
  }
  ::close(fds[0]);
  if (open) {
    ::kill(*pid, SIGKILL);
    while (Running(*pid)) std::this_thread::sleep_for(kPollStep);
    return Status::DeadlineExceeded("'snowcar " + (args.empty() ? "" : args[0]) +
                                    "' did not finish within " + std::to_string(timeout.count()) +
                                    " ms");
  }
  while (Running(*pid) && Clock::now() < deadline + 5s) std::this_thread::sleep_for(kPollStep);
  const Child* c = Find(*pid);
  if (c != nullptr && c->reaped && WIFEXITED(c->status)) result.exit_code = WEXITSTATUS(c->status);
  return result;
}

Result<std::string> WaitFirstLine(ProcessGroup& group, pid_t pid, const std::string& name,
                                  const std::string& path, const std::string& stderr_path,
                                  std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    auto head = ReadFileHead(path, kChildOutputLimit);
    const std::string text = head.ok() ? *head : std::string();  // not created yet: no line
    if (const size_t nl = text.find('\n'); nl != std::string::npos) return text.substr(0, nl);
    if (!group.Running(pid)) {
      return Status::Unavailable("the " + name + " ended (" + group.ExitText(pid) +
                                 ") before printing its address; its stderr ends with:\n" +
                                 Tail(stderr_path, 10));
    }
    if (Clock::now() >= deadline) {
      return Status::DeadlineExceeded("the " + name + " printed no address within " +
                                      std::to_string(timeout.count()) + " ms");
    }
    std::this_thread::sleep_for(kPollStep);
  }
}

std::string Tail(const std::string& path, int lines) {
  auto tail = ReadFileTail(path, kChildOutputLimit);
  std::istringstream in(tail.ok() ? *tail : std::string());
  std::deque<std::string> last;
  std::string line;
  while (std::getline(in, line)) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::ostringstream out;
  for (const auto& l : last) out << "  " << l << "\n";
  return out.str();
}

std::string SelfExecutable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : path.string();
}

}  // namespace snowcar::demo
