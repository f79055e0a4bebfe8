// SPDX-License-Identifier: Apache-2.0
#include "pairwise.h"

#include <set>
#include <tuple>

namespace snowcar::contract {
namespace {

using Pair = std::tuple<int, int, int, int>;  // (dim a, value a, dim b, value b), a < b

std::set<Pair> AllPairsOf(const std::vector<Dimension>& dims, const PairFilter& allowed) {
  std::set<Pair> out;
  for (int a = 0; a < static_cast<int>(dims.size()); ++a) {
    for (int b = a + 1; b < static_cast<int>(dims.size()); ++b) {
      for (int va = 0; va < static_cast<int>(dims[a].values.size()); ++va) {
        for (int vb = 0; vb < static_cast<int>(dims[b].values.size()); ++vb) {
          if (!allowed || allowed(a, va, b, vb)) out.insert({a, va, b, vb});
        }
      }
    }
  }
  return out;
}

}  // namespace

const std::vector<Dimension>& FeatureDimensions() {
  static const std::vector<Dimension> dims = {
      {"format", {"json", "json_typed", "avro", "json_schema"}},
      {"deletes", {"none", "audit", "reconcile", "audit+reconcile"}},
      {"parallelism", {"1", "4"}},
      {"tombstones", {"false", "true"}},
      {"envelope", {"false", "true"}},
      {"ordering", {"partition", "key"}},
      {"echo", {"mark", "suppress"}},
      {"replicas", {"1", "2"}},
  };
  return dims;
}

std::vector<Combination> AllPairs(const std::vector<Dimension>& dims, const PairFilter& allowed) {
  std::set<Pair> open = AllPairsOf(dims, allowed);
  std::vector<Combination> out;
  const int n = static_cast<int>(dims.size());
  while (!open.empty()) {
    // Seed the row with the first open pair, then fill each other dimension with the value
    // that covers the most open pairs with what is chosen so far (ties: the lowest value).
    const auto [a0, va0, b0, vb0] = *open.begin();
    Combination c(n, 0);
    std::vector<bool> fixed(n, false);
    c[a0] = va0;
    c[b0] = vb0;
    fixed[a0] = fixed[b0] = true;
    for (int d = 0; d < n; ++d) {
      if (fixed[d]) continue;
      int best = 0;
      int best_gain = -1;
      for (int v = 0; v < static_cast<int>(dims[d].values.size()); ++v) {
        bool fits = true;
        for (int e = 0; e < n && allowed; ++e) {
          if (e == d || !fixed[e]) continue;
          fits = fits && (d < e ? allowed(d, v, e, c[e]) : allowed(e, c[e], d, v));
        }
        if (!fits) continue;
        int gain = 0;
        for (int e = 0; e < n; ++e) {
          if (e == d || !fixed[e]) continue;
          gain += open.count(d < e ? Pair{d, v, e, c[e]} : Pair{e, c[e], d, v}) ? 1 : 0;
        }
        if (gain > best_gain) {
          best_gain = gain;
          best = v;
        }
      }
      c[d] = best;
      fixed[d] = true;
    }
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) open.erase({a, c[a], b, c[b]});
    }
    out.push_back(c);
  }
  return out;
}

std::vector<std::string> UncoveredPairs(const std::vector<Dimension>& dims,
                                        const std::vector<Combination>& set,
                                        const PairFilter& allowed) {
  std::set<Pair> open = AllPairsOf(dims, allowed);
  for (const auto& c : set) {
    for (int a = 0; a < static_cast<int>(c.size()); ++a) {
      for (int b = a + 1; b < static_cast<int>(c.size()); ++b) open.erase({a, c[a], b, c[b]});
    }
  }
  std::vector<std::string> out;
  out.reserve(open.size());
  for (const auto& [a, va, b, vb] : open) {
    out.push_back(dims[a].name + "=" + dims[a].values[va] + " with " + dims[b].name + "=" +
                  dims[b].values[vb]);
  }
  return out;
}

std::vector<std::string> RefusedPairsUsed(const std::vector<Dimension>& dims,
                                          const std::vector<Combination>& set,
                                          const PairFilter& allowed) {
  std::vector<std::string> out;
  for (const auto& c : set) {
    for (int a = 0; a < static_cast<int>(c.size()); ++a) {
      for (int b = a + 1; b < static_cast<int>(c.size()); ++b) {
        if (!allowed(a, c[a], b, c[b])) {
          out.push_back(dims[a].name + "=" + dims[a].values[c[a]] + " with " + dims[b].name + "=" +
                        dims[b].values[c[b]]);
        }
      }
    }
  }
  return out;
}

std::map<std::string, std::string> Describe(const std::vector<Dimension>& dims,
                                            const Combination& c) {
  std::map<std::string, std::string> out;
  for (size_t d = 0; d < dims.size(); ++d) out[dims[d].name] = dims[d].values[c[d]];
  return out;
}

std::string ComboName(const std::vector<Dimension>& dims, const Combination& c) {
  std::string out;
  for (size_t d = 0; d < dims.size(); ++d) {
    std::string v = dims[d].values[c[d]];
    if (dims[d].name == "parallelism") v.insert(0, "p");
    if (dims[d].name == "replicas") v.insert(0, "r");
    if (dims[d].name == "tombstones") v = v == "true" ? "tomb" : "notomb";
    if (dims[d].name == "envelope") v = v == "true" ? "env" : "noenv";
    if (v == "audit+reconcile") v = "both";
    out += (out.empty() ? "" : ".") + v;
  }
  return out;
}

}  // namespace snowcar::contract
