// SPDX-License-Identifier: Apache-2.0
// The filesystem side of a Unix socket path: what is there, and making room for a new one.
// Shared by the server (before bind) and the client (to explain a failed connect).
#pragma once

#include <string>

#include "snowcar/common/status.h"

namespace snowcar::api::internal {

enum class SocketFileState {
  kAbsent,     // nothing at the path
  kNotSocket,  // a regular file, directory, ... : never ours to delete
  kListening,  // a socket some process accepts on
  kStale,      // a socket file nobody accepts on (left by a crashed run)
  kNoAccess,   // exists, but we may not connect (EACCES)
  kUnknown,    // connect failed otherwise; the Status has errno text
};

struct SocketProbe {
  SocketFileState state = SocketFileState::kUnknown;
  std::string detail;  // errno text when it helps
};

// Longest path that fits sockaddr_un.sun_path (with its terminating NUL).
size_t MaxSocketPathLength();

// Checks `path` without changing anything: lstat, then a connect() when it is a socket.
SocketProbe ProbeSocketFile(const std::string& path);

// Makes `path` ready for bind(): validates its length, creates missing parent directories
// with mode 0750, removes a stale socket file. Refuses a path in use (kAlreadyExists) or one
// that is not a socket (kFailedPrecondition).
Status PrepareSocketPath(const std::string& path);

}  // namespace snowcar::api::internal
