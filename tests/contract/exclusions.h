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
  // For a refusal: configuration keys its text must name, so it says what to change.
  std::vector<std::string> keys;
};

const std::vector<KnownBreak>& KnownBreaks();

// Pairs `snowcar config check` refuses today (exit 2), with the refusal's gist. They are not
// put into the combinations that run (where they would turn the whole combination into a
// refusal and hide its other pairs); one refusal case per pair checks the refusal instead,
// and fails when config check accepts it (RefusalMismatch): a refusal that goes away takes
// its pair out of this list, so the pair runs again, rather than going unchecked.
const std::vector<KnownBreak>& KnownRefusals();

// The filter AllPairs takes: false for a pair of KnownBreaks().
PairFilter WithoutKnownBreaks(const std::vector<Dimension>& dims);
// False for a pair of KnownBreaks() or KnownRefusals(): the combinations that run.
PairFilter Runnable(const std::vector<Dimension>& dims);
// One combination per refused pair: that pair, every other dimension at its first value.
std::vector<Combination> RefusalCases(const std::vector<Dimension>& dims);

// The known refusal `c` holds (nullptr when none): config check must refuse `c`.
const KnownBreak* ExpectedRefusal(const std::vector<Dimension>& dims, const Combination& c);
// "" when config check's verdict on `c` is the one KnownRefusals() predicts: refused, with a
// text naming each key of the refusal, exactly when `c` holds a known refusal. Otherwise what
// differs, and what to change.
std::string RefusalMismatch(const std::vector<Dimension>& dims, const Combination& c, bool refused,
                            const std::string& text);

// The reason a combination holds a known break ("" when it holds none).
std::string BreakReason(const std::vector<Dimension>& dims, const Combination& c);

}  // namespace snowcar::contract
