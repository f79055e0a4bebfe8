// SPDX-License-Identifier: Apache-2.0
#include "support/temp_dir.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>

namespace snowcar::testsupport {

TempDir::TempDir(std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" +
                        std::string(prefix) + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::perror(("TempDir: mkdtemp " + pattern).c_str());
    std::abort();
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (ec)
    std::fprintf(stderr, "TempDir: cannot remove %s: %s\n", path_.c_str(), ec.message().c_str());
}

std::string TempDir::File(std::string_view name) const { return (path_ / name).string(); }

}  // namespace snowcar::testsupport
