// SPDX-License-Identifier: Apache-2.0
// Pairs of feature values that break an invariant on main today, each with the known finding
// it is (issue 31's list). The fixed set covers every other pair and never runs these; random
// runs draw them only with `contract_driver --all`. A pair leaves this list when its fix lands
// and the pair holds (or `snowcar config check` refuses it).
#pragma once

#include <string>
#include <vector>

#include "pairwise.h"

namespace snowcar::contract {

struct KnownBreak {
  std::string dim_a;
  std::vector<std::string> values_a;
  std::string dim_b;
  std::vector<std::string> values_b;
  std::string reason;
};

const std::vector<KnownBreak>& KnownBreaks();

// The filter AllPairs takes: false for a pair of KnownBreaks().
PairFilter WithoutKnownBreaks(const std::vector<Dimension>& dims);

// The reason a combination holds a known break ("" when it holds none).
std::string BreakReason(const std::vector<Dimension>& dims, const Combination& c);

}  // namespace snowcar::contract
