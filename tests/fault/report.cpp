// SPDX-License-Identifier: Apache-2.0
#include "report.h"

#include <cstdio>

namespace snowcar::fault {

void Row::Fail(const std::string& why) {
  failed_check = true;
  Note("FAILED: " + why);
}

void Row::Note(const std::string& what) { extra += (extra.empty() ? "" : "; ") + what; }

void Row::Evicted(int64_t offsets, const std::string& where) {
  evicted = offsets;
  Note("the broker evicted records, the check is void: " + std::to_string(offsets) +
       " offsets dropped (" + where + "); size the topic so each partition stays under 5 MiB");
}

void PrintTable(const std::string& title, const std::vector<Row>& rows) {
  std::printf("\n### %s\n\n", title.c_str());
  std::printf(
      "| scenario | rounds | faults | in | out | lost | duplicated | bound | verdict | checked "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    const std::string bound = r.bound < 0 ? "n/a" : std::to_string(r.bound);
    // Versions missing from a topic the broker truncated are not loss: say "void", not a count.
    const std::string lost = r.evicted > 0 ? "void" : std::to_string(r.lost);
    std::printf("| %s | %d | %d | %lld | %lld | %s | %lld | %s | %s | %s |\n", r.scenario.c_str(),
                r.rounds, r.faults, static_cast<long long>(r.in), static_cast<long long>(r.out),
                lost.c_str(), static_cast<long long>(r.duplicated), bound.c_str(),
                r.verdict().c_str(), r.extra.c_str());
  }
  std::fflush(stdout);
}

}  // namespace snowcar::fault
