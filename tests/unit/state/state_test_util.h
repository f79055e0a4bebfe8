// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the state store tests: a temp dir that cleans up after itself and
// small builders for identities and sys_ids.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "snowcar/state/state_store.h"

namespace snowcar::state::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "snowcar-state-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline CursorIdentity Identity(const std::string& table, const std::string& fingerprint = "fp1",
                               const std::string& instance = "acme.service-now.com",
                               const std::string& ts_field = "sys_updated_on") {
  return CursorIdentity{instance, table, fingerprint, ts_field};
}

// A ServiceNow-shaped sys_id (32 lowercase hex) derived from a number.
inline std::string HexId(uint64_t n) {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(n) * 7919,
                static_cast<unsigned long long>(n));
  return buf;
}

inline std::unique_ptr<StateStore> OpenOrDie(const std::string& dir) {
  auto store = StateStore::Open(StateStoreOptions{dir});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return nullptr;
  return std::move(store).value();
}

}  // namespace snowcar::state::testing
