// SPDX-License-Identifier: Apache-2.0
#include "state/state_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "state/dir_lock.h"

namespace snowcar::state {
namespace {

Status FromErrno(int err, const std::string& dir, std::string_view what) {
  std::string msg = "state dir " + dir + ": " + std::string(what) + ": " + std::strerror(err);
  switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
      return Status::PermissionDenied(msg + " (the dir must be writable by this process)");
    case ENOSPC:
    case EDQUOT:
      return Status::ResourceExhausted(msg);
    case ENOENT:
      return Status::NotFound(msg);
    default:
      return Status::FailedPrecondition(msg);
  }
}

// Names RocksDB itself may leave behind when a create was interrupted before CURRENT.
bool IsRocksLeftover(const std::string& name) {
  return name == "LOCK" || name == "IDENTITY" || name.starts_with("LOG") ||
         name.starts_with("MANIFEST-") || name.starts_with("OPTIONS-") ||
         name.ends_with(".dbtmp") || name.ends_with(".log");
}

}  // namespace

Status EnsureStateDir(const std::string& dir, bool create_if_missing, bool owner_only) {
  if (dir.empty()) return Status::InvalidArgument("state.dir is empty: set it to a directory");
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return Status::FailedPrecondition("state dir " + dir +
                                        " exists but is not a directory; point state.dir at a "
                                        "directory (it is created when missing)");
    }
    return Status::Ok();
  }
  const int err = errno;
  if (err != ENOENT) return FromErrno(err, dir, "cannot inspect it");
  if (!create_if_missing) {
    return Status::NotFound("state dir " + dir + " does not exist (creation is turned off)");
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return FromErrno(ec.value(), dir, "cannot create it");
  // chmod rather than mkdir's mode argument, which the umask would narrow or a loose umask
  // could not narrow enough.
  if (owner_only && chmod(dir.c_str(), 0700) != 0) {
    return FromErrno(errno, dir, "cannot set its mode to 0700");
  }
  return Status::Ok();
}

void RestrictUmaskToOwner() {
  // umask(2) can only be read by setting it: set the tightest first, so another thread
  // creating a file in between gets a mode too narrow, never too wide.
  const mode_t old = umask(077);
  umask(old | 077);
}

Result<DirContents> InspectStateDir(const std::string& dir) {
  std::error_code ec;
  bool has_current = false;
  std::string foreign;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "CURRENT") {
      has_current = true;
    } else if (name != kLockFileName && !IsRocksLeftover(name) && foreign.empty()) {
      foreign = name;
    }
  }
  if (ec) return FromErrno(ec.value(), dir, "cannot list it");
  if (has_current) return DirContents::kDatabase;
  if (!foreign.empty()) {
    return Status::FailedPrecondition(
        "state dir " + dir + " is not empty and holds no snowcar state (found '" + foreign +
        "'); point state.dir at an empty or missing directory");
  }
  return DirContents::kEmpty;
}

}  // namespace snowcar::state
