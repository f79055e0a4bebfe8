// SPDX-License-Identifier: Apache-2.0
// A fresh directory under $TMPDIR (or /tmp) that is deleted with everything in it when the
// object goes away, so tests never share or leak on-disk state.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace snowcar::testsupport {

class TempDir {
 public:
  // Creates <tmp>/<prefix>-XXXXXX. A test cannot run without it, so failure aborts the test
  // binary with the reason on stderr.
  explicit TempDir(std::string_view prefix = "snowcar-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path()/name, as a string ready for a command line or config value.
  std::string File(std::string_view name) const;

 private:
  std::filesystem::path path_;
};

}  // namespace snowcar::testsupport
