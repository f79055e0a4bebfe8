// SPDX-License-Identifier: Apache-2.0
// Reading files with a size limit. Every file snowcar reads goes through here, so a path that
// points at /dev/zero, a FIFO fed forever or a mistaken multi-gigabyte file ends in an error
// naming the file and the limit instead of exhausting memory.
//
// Sizes are not trusted from stat(2): /proc files and character devices report 0, so the
// limit is enforced on the bytes actually read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar {

// The limits, one per kind of file. Each is far above any sensible file of its kind.
struct ReadLimit {
  std::string_view what;  // "config file": how messages name the file's role
  size_t max_bytes;
};
// A .properties file (`snowcar run --config`, `config check`, `state --config`).
inline constexpr ReadLimit kConfigFileLimit{"config file", size_t{1} << 20};
// A secret given as `<key>.file` (a password, token or PEM bundle).
inline constexpr ReadLimit kSecretFileLimit{"secret file", size_t{1} << 20};
// A seed file of `snowcar emulate --seed` (JSON rows, held in memory by the emulator anyway).
inline constexpr ReadLimit kSeedFileLimit{"seed file", size_t{256} << 20};
// A file of /proc read for the process metrics.
inline constexpr ReadLimit kProcFileLimit{"proc file", size_t{1} << 20};
// What `snowcar demo` reads back from its children's output files.
inline constexpr ReadLimit kChildOutputLimit{"child output", size_t{64} << 10};

// "1 MiB", "64 KiB", "300 bytes".
std::string FormatByteSize(size_t bytes);

// The whole file. Errors name the path: NotFound/PermissionDenied when it cannot be opened,
// InvalidArgument for a directory or a file larger than `limit` ("cannot read config file
// 'x': more than 1 MiB, the limit for a config file"), Unavailable for a failing read.
Result<std::string> ReadFileBounded(const std::string& path, ReadLimit limit);

// At most limit.max_bytes from the start of the file, without complaint when there is more
// (a first line, a header).
Result<std::string> ReadFileHead(const std::string& path, ReadLimit limit);

// At most limit.max_bytes from the end of a regular file (the end of a log).
Result<std::string> ReadFileTail(const std::string& path, ReadLimit limit);

}  // namespace snowcar
