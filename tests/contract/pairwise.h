// SPDX-License-Identifier: Apache-2.0
// The feature dimensions a user combines, and an all-pairs covering set over them: every
// value of every dimension appears next to every value of every other dimension in at least
// one combination. Deterministic (greedy, no randomness), so the fixed set never changes
// unless the dimensions do.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace snowcar::contract {

struct Dimension {
  std::string name;
  std::vector<std::string> values;
};

// value format, deletes, backfill parallelism, tombstones, envelope, sink ordering, echo,
// replicas, exactly-once.
const std::vector<Dimension>& FeatureDimensions();

// One combination: the index of the chosen value per dimension.
using Combination = std::vector<int>;

// Whether value `va` of dimension `a` may run together with value `vb` of dimension `b`
// (a < b). A pair it refuses is neither required nor put in any combination.
using PairFilter = std::function<bool(int a, int va, int b, int vb)>;

// A covering set: every allowed pair of values of two different dimensions is in some
// combination, and no combination holds a pair `allowed` refuses (no filter: every pair).
std::vector<Combination> AllPairs(const std::vector<Dimension>& dims,
                                  const PairFilter& allowed = nullptr);
// Allowed pairs of `dims` that no combination of `set` covers (empty for a covering set).
std::vector<std::string> UncoveredPairs(const std::vector<Dimension>& dims,
                                        const std::vector<Combination>& set,
                                        const PairFilter& allowed = nullptr);
// Refused pairs some combination of `set` holds (empty when the filter was kept).
std::vector<std::string> RefusedPairsUsed(const std::vector<Dimension>& dims,
                                          const std::vector<Combination>& set,
                                          const PairFilter& allowed);

// A combination as dimension -> value, and its short name ("avro.audit.p4.tomb...", ending
// in ".eos" with exactly-once on; off adds nothing).
std::map<std::string, std::string> Describe(const std::vector<Dimension>& dims,
                                            const Combination& c);
std::string ComboName(const std::vector<Dimension>& dims, const Combination& c);
// The combination ComboName printed as `name`; nullopt when a part names no value.
std::optional<Combination> ParseComboName(const std::vector<Dimension>& dims,
                                          const std::string& name);

}  // namespace snowcar::contract
