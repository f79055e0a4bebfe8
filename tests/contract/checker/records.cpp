// SPDX-License-Identifier: Apache-2.0
#include "records.h"

#include <map>

namespace snowcar::contract {

const char* KindName(ViolationKind kind) {
  switch (kind) {
    case ViolationKind::kLost:
      return "lost";
    case ViolationKind::kReorder:
      return "reorder";
    case ViolationKind::kStaleFinal:
      return "stale-final";
    case ViolationKind::kDuplicates:
      return "duplicates";
    case ViolationKind::kUndecodable:
      return "undecodable";
    case ViolationKind::kWrongMark:
      return "wrong-echo-mark";
    case ViolationKind::kSinkOutOfOrder:
      return "sink-out-of-order";
    case ViolationKind::kSinkUncommitted:
      return "sink-committed-past-unapplied";
    case ViolationKind::kSinkUnfinished:
      return "sink-unfinished";
  }
  return "?";
}

void Verdict::Merge(const Verdict& other) {
  if (other.void_check) {
    void_check = true;
    void_reason += (void_reason.empty() ? "" : "; ") + other.void_reason;
  }
  violations.insert(violations.end(), other.violations.begin(), other.violations.end());
}

std::string Verdict::Summary(size_t limit) const {
  std::string out;
  if (void_check) out += "VOID: " + void_reason + "\n";
  std::map<ViolationKind, size_t> shown;
  std::map<ViolationKind, size_t> total;
  for (const auto& v : violations) ++total[v.kind];
  for (const auto& v : violations) {
    if (shown[v.kind]++ >= limit) continue;
    out += std::string(KindName(v.kind)) + ": " + v.detail + "\n";
  }
  for (const auto& [kind, n] : total) {
    if (n > limit) {
      out += std::string(KindName(kind)) + ": ... " + std::to_string(n - limit) + " more\n";
    }
  }
  return out;
}

void CheckWatermarks(const TopicDump& dump, Verdict& verdict) {
  for (const auto& m : dump.marks) {
    if (m.low > 0) {
      verdict.void_check = true;
      verdict.void_reason += (verdict.void_reason.empty() ? "" : "; ") + dump.topic + "[" +
                             std::to_string(m.partition) + "] starts at offset " +
                             std::to_string(m.low) + ": records were removed before the check";
    }
  }
}

}  // namespace snowcar::contract
