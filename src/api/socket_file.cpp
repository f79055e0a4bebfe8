// SPDX-License-Identifier: Apache-2.0
#include "socket_file.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "snowcar/common/log.h"

namespace snowcar::api::internal {
namespace {

std::string ErrnoText(int err) { return std::string(strerror(err)); }

// mkdir -p for the parent of `path`; directories created here get mode 0750 (chmod after
// mkdir, so the process umask cannot widen or narrow it).
Status CreateParentDirs(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return Status::Ok();
  const std::string dir = path.substr(0, slash);
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return Status::FailedPrecondition("socket.path '" + path + "': parent '" + dir +
                                        "' exists and is not a directory");
    }
    return Status::Ok();
  }
  SNOWCAR_RETURN_IF_ERROR(CreateParentDirs(dir));
  if (mkdir(dir.c_str(), 0750) != 0 && errno != EEXIST) {
    const int err = errno;
    Status s(err == EACCES ? StatusCode::kPermissionDenied : StatusCode::kFailedPrecondition,
             "cannot create socket directory '" + dir + "': " + ErrnoText(err));
    return s;
  }
  if (chmod(dir.c_str(), 0750) != 0) {
    return Status::FailedPrecondition("cannot set mode 0750 on socket directory '" + dir +
                                      "': " + ErrnoText(errno));
  }
  SNOWCAR_LOG(kInfo, "api.socket_dir_created", {{"dir", dir}});
  return Status::Ok();
}

}  // namespace

size_t MaxSocketPathLength() { return sizeof(sockaddr_un::sun_path) - 1; }

SocketProbe ProbeSocketFile(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return {SocketFileState::kAbsent, ErrnoText(err)};
    if (err == EACCES) return {SocketFileState::kNoAccess, ErrnoText(err)};
    return {SocketFileState::kUnknown, ErrnoText(err)};
  }
  if (!S_ISSOCK(st.st_mode)) return {SocketFileState::kNotSocket, {}};
  if (path.size() > MaxSocketPathLength()) return {SocketFileState::kUnknown, "path too long"};

  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {SocketFileState::kUnknown, ErrnoText(errno)};
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  memcpy(addr.sun_path, path.data(), path.size());
  // A blocking connect on a Unix socket returns at once: it either finds a listener (even
  // with a full backlog it fails with EAGAIN rather than waiting) or fails.
  const int rc = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  const int err = rc == 0 ? 0 : errno;
  close(fd);
  if (rc == 0 || err == EAGAIN) return {SocketFileState::kListening, {}};
  if (err == ECONNREFUSED) return {SocketFileState::kStale, {}};
  if (err == EACCES || err == EPERM) return {SocketFileState::kNoAccess, ErrnoText(err)};
  if (err == ENOENT) return {SocketFileState::kAbsent, ErrnoText(err)};
  return {SocketFileState::kUnknown, ErrnoText(err)};
}

Status PrepareSocketPath(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("socket.path is empty");
  if (path.size() > MaxSocketPathLength()) {
    return Status::InvalidArgument("socket.path '" + path + "' is " + std::to_string(path.size()) +
                                   " bytes; a Unix socket path " + "may have at most " +
                                   std::to_string(MaxSocketPathLength()));
  }
  SNOWCAR_RETURN_IF_ERROR(CreateParentDirs(path));
  const SocketProbe probe = ProbeSocketFile(path);
  switch (probe.state) {
    case SocketFileState::kAbsent:
      return Status::Ok();
    case SocketFileState::kStale:
      if (unlink(path.c_str()) != 0 && errno != ENOENT) {
        return Status::FailedPrecondition("cannot remove stale socket '" + path +
                                          "': " + ErrnoText(errno));
      }
      SNOWCAR_LOG(kInfo, "api.stale_socket_removed", {{"path", path}});
      return Status::Ok();
    case SocketFileState::kListening:
      return Status::AlreadyExists("socket.path '" + path +
                                   "' is in use: another process accepts connections on it "
                                   "(is another snowcar running?)");
    case SocketFileState::kNotSocket:
      return Status::FailedPrecondition("socket.path '" + path +
                                        "' exists and is not a socket; refusing to delete it");
    case SocketFileState::kNoAccess:
      return Status::PermissionDenied("socket.path '" + path + "': " + probe.detail);
    case SocketFileState::kUnknown:
      break;
  }
  return Status::FailedPrecondition("socket.path '" + path + "': " + probe.detail);
}

}  // namespace snowcar::api::internal
