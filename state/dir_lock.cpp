// SPDX-License-Identifier: Apache-2.0
#include "state/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace snowcar::state {
namespace {

std::string Errno(int err) { return std::strerror(err); }

// "pid 123\nhost box\n" -> "pid 123 on host box"; anything else is shown as found.
std::string DescribeHolder(int fd) {
  char buf[512];
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  if (n <= 0) return "another process (holder not recorded yet)";
  std::string text(buf, static_cast<size_t>(n));
  std::string pid, host;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + pos, end - pos);
    if (line.starts_with("pid ")) pid = line.substr(4);
    if (line.starts_with("host ")) host = line.substr(5);
    pos = end + 1;
  }
  if (pid.empty()) return "another process (holder not recorded yet)";
  return "pid " + pid + " on host " + (host.empty() ? "?" : host);
}

}  // namespace

Result<std::unique_ptr<DirLock>> DirLock::Acquire(const std::string& dir) {
  const std::string path = dir + "/" + kLockFileName;
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int err = errno;
    std::string msg = "state dir " + dir + ": cannot create lock file " + path + ": " + Errno(err);
    if (err == EACCES || err == EROFS || err == EPERM) return Status::PermissionDenied(msg);
    if (err == ENOSPC) return Status::ResourceExhausted(msg);
    return Status::FailedPrecondition(msg);
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) {
      std::string holder = DescribeHolder(fd);
      close(fd);
      return Status::AlreadyExists("state dir " + dir + " is in use by " + holder +
                                   "; stop that process or point state.dir elsewhere");
    }
    close(fd);
    return Status::FailedPrecondition("state dir " + dir + ": cannot lock " + path + ": " +
                                      Errno(err));
  }
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) std::strcpy(host, "unknown");
  const std::string text = "pid " + std::to_string(getpid()) + "\nhost " + std::string(host) + "\n";
  if (ftruncate(fd, 0) != 0 ||
      pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    const int err = errno;
    close(fd);
    std::string msg = "state dir " + dir + ": cannot write lock file " + path + ": " + Errno(err);
    if (err == ENOSPC) return Status::ResourceExhausted(msg);
    return Status::PermissionDenied(msg);
  }
  return std::unique_ptr<DirLock>(new DirLock(fd));
}

DirLock::~DirLock() {
  // Leave the file (another process may already be waiting to open it); the lock goes with
  // the descriptor.
  close(fd_);
}

}  // namespace snowcar::state
