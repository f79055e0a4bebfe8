// SPDX-License-Identifier: Apache-2.0
#include "support/state_fixture.h"

#include <cstdio>
#include <utility>

namespace snowcar::testsupport {

std::unique_ptr<state::StateStore> OpenStateStore(const std::string& dir) {
  auto store = state::StateStore::Open(state::StateStoreOptions{dir});
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return nullptr;
  return std::move(store).value();
}

state::CursorIdentity StateIdentity(const std::string& table, const std::string& fingerprint,
                                    const std::string& instance, const std::string& ts_field) {
  return state::CursorIdentity{instance, table, fingerprint, ts_field};
}

std::string HexId(uint64_t n) {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(n) * 7919,
                static_cast<unsigned long long>(n));
  return buf;
}

}  // namespace snowcar::testsupport
