// SPDX-License-Identifier: Apache-2.0
// Checks on the state dir itself, before the lock and RocksDB see it: that it is a
// directory (creating it when allowed), and whether it already holds a database.
#pragma once

#include <string>

#include "snowcar/common/status.h"

namespace snowcar::state {

// Makes sure `dir` exists as a directory. Errors name the dir and the cause: a regular file
// in its place, a parent that is a file, no permission, a read-only file system. A dir it
// creates gets mode 0700 when `owner_only` (whatever the umask), else the umask's choice;
// missing parents always get the umask's choice, and an existing dir is left as it is.
Status EnsureStateDir(const std::string& dir, bool create_if_missing, bool owner_only);

// Adds 077 to the process umask, so every file created from now on (RocksDB's included) is
// readable by its owner only. Never loosens it; never opens a window where it is looser.
void RestrictUmaskToOwner();

enum class DirContents {
  kEmpty,     // nothing but our lock file (or RocksDB's leftovers of an interrupted create)
  kDatabase,  // a RocksDB CURRENT file is there
};
// kFailedPrecondition naming the first foreign file when the dir holds something else, so
// snowcar never scatters its files into a directory that belongs to someone else.
Result<DirContents> InspectStateDir(const std::string& dir);

}  // namespace snowcar::state
