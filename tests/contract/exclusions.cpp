// SPDX-License-Identifier: Apache-2.0
#include "exclusions.h"

#include <algorithm>

namespace snowcar::contract {
namespace {

bool In(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// Whether (dimension a = va, dimension b = vb), in either order, is known break `k`.
bool Matches(const KnownBreak& k, const std::string& a, const std::string& va, const std::string& b,
             const std::string& vb) {
  return (k.dim_a == a && In(k.values_a, va) && k.dim_b == b && In(k.values_b, vb)) ||
         (k.dim_a == b && In(k.values_a, vb) && k.dim_b == a && In(k.values_b, va));
}

}  // namespace

const std::vector<KnownBreak>& KnownBreaks() {
  static const std::vector<KnownBreak> all = {
      {"format",
       {"json_typed", "avro", "json_schema"},
       "parallelism",
       {"4"},
       "typed records with a parallel backfill: the sidecar crashes (SIGSEGV) when the backlog "
       "is split into ranges (issue 31, finding 3)"},
      {"format",
       {"json_typed", "avro", "json_schema"},
       "deletes",
       {"reconcile", "audit+reconcile"},
       "typed formats with reconciliation are accepted and write unframed JSON DELETE records "
       "into the typed topic (issue 31, finding 4)"},
  };
  return all;
}

PairFilter WithoutKnownBreaks(const std::vector<Dimension>& dims) {
  return [&dims](int a, int va, int b, int vb) {
    for (const auto& k : KnownBreaks()) {
      if (Matches(k, dims[a].name, dims[a].values[va], dims[b].name, dims[b].values[vb])) {
        return false;
      }
    }
    return true;
  };
}

std::string BreakReason(const std::vector<Dimension>& dims, const Combination& c) {
  for (size_t a = 0; a < c.size(); ++a) {
    for (size_t b = a + 1; b < c.size(); ++b) {
      for (const auto& k : KnownBreaks()) {
        if (Matches(k, dims[a].name, dims[a].values[c[a]], dims[b].name, dims[b].values[c[b]])) {
          return k.reason;
        }
      }
    }
  }
  return "";
}

}  // namespace snowcar::contract
