// SPDX-License-Identifier: Apache-2.0
// What the crash child writes, shared by the child and the test that kills it: second N
// holds kRowsPerSecond rows, committed together with cursor (kBaseTs + N, last row's id).
// Given the cursor a run left behind, the dedup entries on disk are fully determined.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "snowcar/state/state_store.h"

namespace snowcar::state::crash {

inline constexpr int64_t kBaseTs = 1764633600;  // 2025-12-02 00:00:00 UTC
inline constexpr int kRowsPerSecond = 5;

inline CursorIdentity Identity() {
  return CursorIdentity{"crash.service-now.com", "incident", "fp-crash", "sys_updated_on"};
}

// 32 lowercase hex digits that sort by (second, row) like the rows are emitted.
inline std::string RowId(int64_t second, int row) {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(second),
                static_cast<unsigned long long>(row));
  return buf;
}

inline uint32_t ModCount(int64_t second) { return static_cast<uint32_t>(second % 5); }

// The entries that must be on disk after the commit of second `n`: rows with
// ts >= cursor - overlap, and of those only the newest window_records.
inline std::vector<DedupKey> Expected(int64_t n, const DedupPolicy& policy) {
  std::vector<DedupKey> all;
  for (int64_t s = std::max<int64_t>(1, n - policy.overlap_seconds); s <= n; ++s) {
    for (int r = 0; r < kRowsPerSecond; ++r) all.push_back({kBaseTs + s, RowId(s, r), ModCount(s)});
  }
  if (all.size() > policy.window_records) {
    all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(policy.window_records));
  }
  return all;
}

}  // namespace snowcar::state::crash
