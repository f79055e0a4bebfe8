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

// dim_b "*" (values_b {"*"}): value_a of dim_a breaks whatever it runs with.
struct KnownBreak {
  std::string dim_a;
  std::vector<std::string> values_a;
  std::string dim_b;
  std::vector<std::string> values_b;
  std::string reason;
};

const std::vector<KnownBreak>& KnownBreaks();

// Pairs `snowcar config check` refuses today (exit 2), with the refusal's gist. They are not
// put into the combinations that run (where they would turn the whole combination into a
// refusal and hide its other pairs); one refusal case per pair checks the refusal instead.
const std::vector<KnownBreak>& KnownRefusals();

// The filter AllPairs takes: false for a pair of KnownBreaks().
PairFilter WithoutKnownBreaks(const std::vector<Dimension>& dims);
// False for a pair of KnownBreaks() or KnownRefusals(): the combinations that run.
PairFilter Runnable(const std::vector<Dimension>& dims);
// One combination per refused pair: that pair, every other dimension at its first value.
std::vector<Combination> RefusalCases(const std::vector<Dimension>& dims);

// The reason a combination holds a known break ("" when it holds none).
std::string BreakReason(const std::vector<Dimension>& dims, const Combination& c);

}  // namespace snowcar::contract
