// SPDX-License-Identifier: Apache-2.0
#include "report.h"

#include <cstdio>

namespace snowcar::fault {

void Row::Fail(const std::string& why) {
  failed_check = true;
  Note("FAILED: " + why);
}

void Row::Note(const std::string& what) { extra += (extra.empty() ? "" : "; ") + what; }

void PrintTable(const std::string& title, const std::vector<Row>& rows) {
  std::printf("\n### %s\n\n", title.c_str());
  std::printf(
      "| scenario | rounds | faults | in | out | lost | duplicated | bound | verdict | checked "
      "|\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& r : rows) {
    const std::string bound = r.bound < 0 ? "n/a" : std::to_string(r.bound);
    std::printf("| %s | %d | %d | %lld | %lld | %lld | %lld | %s | %s | %s |\n", r.scenario.c_str(),
                r.rounds, r.faults, static_cast<long long>(r.in), static_cast<long long>(r.out),
                static_cast<long long>(r.lost), static_cast<long long>(r.duplicated), bound.c_str(),
                r.verdict().c_str(), r.extra.c_str());
  }
  std::fflush(stdout);
}

}  // namespace snowcar::fault
