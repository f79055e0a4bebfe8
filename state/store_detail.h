// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the store's files (state_store_*.cpp); private to the state module.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::state::detail {

// A name in single quotes, as every message of the store shows names.
inline std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

inline Status CheckTable(std::string_view table) {
  if (table.empty()) return Status::InvalidArgument("table name is empty");
  return Status::Ok();
}

// a - b clamped to int64's range: a cursor at the far past minus the overlap stays valid.
inline int64_t SaturatingSub(int64_t a, int64_t b) {
  if (b > 0 && a < std::numeric_limits<int64_t>::min() + b) {
    return std::numeric_limits<int64_t>::min();
  }
  if (b < 0 && a > std::numeric_limits<int64_t>::max() + b) {
    return std::numeric_limits<int64_t>::max();
  }
  return a - b;
}

}  // namespace snowcar::state::detail
