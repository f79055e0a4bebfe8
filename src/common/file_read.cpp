// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace snowcar {
namespace {

std::string Prefix(const std::string& path, ReadLimit limit) {
  return "cannot read " + std::string(limit.what) + " '" + path + "': ";
}

Status OpenError(const std::string& path, ReadLimit limit, int err) {
  std::string message = Prefix(path, limit) + std::strerror(err);
  if (err == EACCES || err == EPERM) return Status::PermissionDenied(std::move(message));
  return Status::NotFound(std::move(message));
}

// Closes the descriptor on every path out.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens `path` for reading; refuses directories, which open fine and fail only on read.
Result<int> OpenForRead(const std::string& path, ReadLimit limit, struct stat& st) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OpenError(path, limit, errno);
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::Unavailable(Prefix(path, limit) + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(Prefix(path, limit) + "it is a directory");
  }
  return fd;
}

// Appends up to `max` bytes read from `fd` (from its current offset) to `out`; stops at EOF.
Status ReadUpTo(int fd, size_t max, std::string& out, const std::string& path, ReadLimit limit) {
  constexpr size_t kChunk = size_t{64} << 10;
  while (out.size() < max) {
    const size_t want = std::min(kChunk, max - out.size());
    const size_t old_size = out.size();
    out.resize(old_size + want);
    const ssize_t n = ::read(fd, out.data() + old_size, want);
    if (n < 0) {
      out.resize(old_size);
      if (errno == EINTR) continue;
      return Status::Unavailable(Prefix(path, limit) + std::strerror(errno));
    }
    out.resize(old_size + static_cast<size_t>(n));
    if (n == 0) break;
  }
  return Status::Ok();
}

}  // namespace

std::string FormatByteSize(size_t bytes) {
  if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= (size_t{1} << 10) && bytes % (size_t{1} << 10) == 0) {
    return std::to_string(bytes >> 10) + " KiB";
  }
  return std::to_string(bytes) + " bytes";
}

Result<std::string> ReadFileBounded(const std::string& path, ReadLimit limit) {
  struct stat st {};
  SNOWCAR_ASSIGN_OR_RETURN(const int raw_fd, OpenForRead(path, limit, st));
  const Fd fd(raw_fd);
  const auto too_large = [&] {
    return Status::InvalidArgument(Prefix(path, limit) + "more than " +
                                   FormatByteSize(limit.max_bytes) + ", the limit for a " +
                                   std::string(limit.what));
  };
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > limit.max_bytes) {
    return too_large();
  }
  std::string out;
  // One byte past the limit tells "exactly the limit" from "more".
  SNOWCAR_RETURN_IF_ERROR(ReadUpTo(fd.get(), limit.max_bytes + 1, out, path, limit));
  if (out.size() > limit.max_bytes) return too_large();
  return out;
}

Result<std::string> ReadFileHead(const std::string& path, ReadLimit limit) {
  struct stat st {};
  SNOWCAR_ASSIGN_OR_RETURN(const int raw_fd, OpenForRead(path, limit, st));
  const Fd fd(raw_fd);
  std::string out;
  SNOWCAR_RETURN_IF_ERROR(ReadUpTo(fd.get(), limit.max_bytes, out, path, limit));
  return out;
}

Result<std::string> ReadFileTail(const std::string& path, ReadLimit limit) {
  struct stat st {};
  SNOWCAR_ASSIGN_OR_RETURN(const int raw_fd, OpenForRead(path, limit, st));
  const Fd fd(raw_fd);
  if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > limit.max_bytes) {
    const off_t start = st.st_size - static_cast<off_t>(limit.max_bytes);
    if (::lseek(fd.get(), start, SEEK_SET) < 0) {
      return Status::Unavailable(Prefix(path, limit) + std::strerror(errno));
    }
  }
  std::string out;
  SNOWCAR_RETURN_IF_ERROR(ReadUpTo(fd.get(), limit.max_bytes, out, path, limit));
  return out;
}

}  // namespace snowcar
