// SPDX-License-Identifier: Apache-2.0
// Crash child: commits second after second to a state store as fast as it can, printing
// "committed N" after each commit returned, until it is killed.
//
//   state_crash_child DIR OVERLAP_SECONDS WINDOW_RECORDS
//
// On start it resumes after the stored cursor and first checks that the warm-up window holds
// every entry the last commit left (exit 3 if not). Exit codes: 2 open/load failed, 3 warm-up
// incomplete, 4 a new row was reported as a duplicate, 5 commit failed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "crash_model.h"
#include "snowcar/common/log.h"
#include "snowcar/state/state_store.h"

using namespace snowcar;
using namespace snowcar::state;

namespace {
void Say(const std::string& line) {
  const std::string text = line + "\n";
  // One write per line so the parent never sees half a line from before the kill.
  if (write(1, text.data(), text.size()) < 0) std::exit(6);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s DIR OVERLAP_SECONDS WINDOW_RECORDS\n", argv[0]);
    return 1;
  }
  log::SetLevel(log::Level::kWarn);
  const DedupPolicy policy{std::atoll(argv[2]), static_cast<size_t>(std::atoll(argv[3]))};
  auto store = StateStore::Open(StateStoreOptions{argv[1]});
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    return 2;
  }
  const CursorIdentity id = crash::Identity();
  auto cursor = (*store)->LoadCursor(id);
  auto window = (*store)->LoadDedupWindow(id, policy);
  if (!cursor.ok() || !window.ok()) {
    std::fprintf(stderr, "load failed\n");
    return 2;
  }
  int64_t n = cursor->has_value() ? (*cursor)->ts - crash::kBaseTs : 0;
  if (n > 0) {
    for (const DedupKey& k : crash::Expected(n, policy)) {
      if (!(*window)->Contains(k)) {
        std::fprintf(stderr, "warm-up lacks %s at %lld\n", k.sys_id.c_str(),
                     static_cast<long long>(k.ts));
        return 3;
      }
    }
  }
  Say("ready " + std::to_string(n));
  for (;;) {
    ++n;
    const int64_t ts = crash::kBaseTs + n;
    for (int r = 0; r < crash::kRowsPerSecond; ++r) {
      if (!(*window)->Insert(ts, crash::RowId(n, r), crash::ModCount(n))) return 4;
    }
    Status s = (*store)->Commit(
        id, Cursor{ts, crash::RowId(n, crash::kRowsPerSecond - 1), Phase::kBackfill}, **window);
    if (!s.ok()) {
      std::fprintf(stderr, "commit: %s\n", s.ToString().c_str());
      return 5;
    }
    Say("committed " + std::to_string(n));
  }
}
