// SPDX-License-Identifier: Apache-2.0
// Our own lock on the state dir, taken before RocksDB is opened.
//
// RocksDB's LOCK file already stops a second writer, but its error ("lock hold by current
// process" / "Resource temporarily unavailable") names neither the holder nor what to do.
// This lock file records the holder's pid and host so the refusal can say who has it. It is
// an flock(2) lock: released by the kernel when the holder dies, so a kill -9 never leaves a
// stale lock, and held per open file, so a second Open in the same process is refused too.
#pragma once

#include <memory>
#include <string>

#include "snowcar/common/status.h"

namespace snowcar::state {

inline constexpr char kLockFileName[] = "snowcar.lock";

class DirLock {
 public:
  // Creates `dir`/snowcar.lock if needed and locks it without waiting. Fails with
  // kAlreadyExists "state dir X is in use by pid N on host H" when another holder has it.
  static Result<std::unique_ptr<DirLock>> Acquire(const std::string& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace snowcar::state
