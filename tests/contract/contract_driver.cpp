// SPDX-License-Identifier: Apache-2.0
// contract_driver: runs feature combinations of snowcar under fault schedules and checks each
// run with the contract checker (docs/reliability.md, The contract checker).
//
//   contract_driver --list               the fixed set: one case per all-pairs combination
//   contract_driver --only NAME          one case of the fixed set (what ctest runs)
//   contract_driver --random N [--seed S] N random schedules; seed S+k picks run k's
//                                        combination and schedule, and is printed
//   contract_driver --seed S             the run of seed S alone (a failing seed, again)
//   ... --all                            draw from every combination, known breaks included
//   contract_driver --regression         every line of tests/contract/regression_seeds.txt;
//                                        with --random N, then the random runs too. A kept
//                                        case of a known break is XFAIL, not a failure
//   contract_driver --kept S [--repeat K]  the kept lines of seed S alone, K times each
//   contract_driver --excluded           pairs the runs leave out (known breaks, refusals), and why
//
// Exits 1 when a run broke an invariant or could not run; a combination that
// `snowcar config check` refuses is reported as REFUSED, not as a failure.
#include <curl/curl.h>
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "contract_run.h"
#include "exclusions.h"
#include "pairwise.h"
#include "schedule.h"

namespace {

using namespace snowcar::contract;

struct Case {
  std::string name;
  Combination combo;
};

// kFixed: the all-pairs combinations without the known breaks and refusals, then one case per
// pair config check refuses (the ctest set). kRunnable: without the refusal cases (random
// runs). kAll: the plain all-pairs set, known breaks included (random runs with --all).
enum class Set { kFixed, kRunnable, kAll };
std::vector<Case> AllCases(Set which = Set::kFixed) {
  const auto& dims = FeatureDimensions();
  std::vector<Case> out;
  auto set = which == Set::kAll ? AllPairs(dims) : AllPairs(dims, Runnable(dims));
  if (which == Set::kFixed) {
    for (const auto& c : RefusalCases(dims)) set.push_back(c);
  }
  for (size_t i = 0; i < set.size(); ++i) {
    char prefix[24];
    std::snprintf(prefix, sizeof prefix, "%02zu", i);
    out.push_back({std::string(prefix) + "." + ComboName(dims, set[i]), set[i]});
  }
  return out;
}

Features FeaturesOf(const Combination& c) { return Describe(FeatureDimensions(), c); }

// The fixed set's shape: two faults in the first 2 s of a 2.5 s window (short, so the whole
// set stays under three minutes of ctest time on two cores); the schedule of case `index`.
constexpr int kFixedFaultSpanMs = 2000;
Schedule FixedSchedule(size_t index, const Features& f) {
  return MakeSchedule(1000 + index, 2, kFixedFaultSpanMs, Replicas(f), NeedsRegistry(f));
}

RunLimits FixedLimits() {
  RunLimits limits;
  limits.span_ms = 2500;
  return limits;
}

bool Report(const std::string& name, const Schedule& s, const RunResult& r) {
  std::printf("%-9s %s (%.0f s) %s\n", OutcomeName(r.outcome), name.c_str(), r.seconds,
              s.ToString().c_str());
  if (!r.facts.empty()) std::printf("          %s\n", r.facts.c_str());
  if (!r.phases.empty()) std::printf("          %s\n", r.phases.c_str());
  if (r.outcome != Outcome::kPass && !r.detail.empty()) {
    std::printf("%s\n", r.detail.c_str());
  }
  return r.outcome == Outcome::kPass || r.outcome == Outcome::kRefused ||
         r.outcome == Outcome::kVoid;
}

// Seed -> (combination, schedule): a seed alone names a whole run.
// A random run's shape: 1 to 4 faults drawn from the seed in a 6 s window.
Schedule RandomSchedule(uint64_t seed, const Features& f) {
  std::mt19937_64 rng(seed);
  const int faults = 1 + static_cast<int>(rng() % 4);
  return MakeSchedule(seed, faults, 6000, Replicas(f), NeedsRegistry(f));
}

RunLimits RandomLimits() {
  RunLimits limits;
  limits.span_ms = 6000;
  return limits;
}

bool RunSeed(uint64_t seed, bool all) {
  const auto cases = AllCases(all ? Set::kAll : Set::kRunnable);
  const Case& c = cases[seed % cases.size()];
  const Features f = FeaturesOf(c.combo);
  const Schedule s = RandomSchedule(seed, f);
  const RunLimits limits = RandomLimits();
  std::printf("seed %llu%s: %s\n", static_cast<unsigned long long>(seed), all ? " (--all)" : "",
              c.name.c_str());
  if (const std::string why = BreakReason(FeatureDimensions(), c.combo); !why.empty()) {
    std::printf("          a known break: %s\n", why.c_str());
  }
  return Report(c.name, s, RunCombination(f, s, limits));
}

// A kept case that names its combination, run in the shape it failed in: "fixed" (two faults
// in a 2.5 s window, as the fixed set) or "random" (as a random run), whatever the
// combination's place in today's sets.
bool RunNamed(uint64_t seed, const std::string& combination, const std::string& shape,
              const std::vector<FaultEvent>& events, int* expected) {
  // The combination from its name, one part per dimension.
  const auto& dims = FeatureDimensions();
  Combination combo(dims.size(), -1);
  std::vector<std::string> parts;
  for (size_t at = 0; at <= combination.size();) {
    size_t dot = combination.find('.', at);
    if (dot == std::string::npos) dot = combination.size();
    parts.push_back(combination.substr(at, dot - at));
    at = dot + 1;
  }
  for (size_t d = 0; d < dims.size() && parts.size() == dims.size(); ++d) {
    for (size_t v = 0; v < dims[d].values.size(); ++v) {
      Combination probe(dims.size(), 0);
      probe[d] = static_cast<int>(v);
      const std::string name = ComboName(dims, probe);
      std::vector<std::string> probe_parts;
      for (size_t at = 0; at <= name.size();) {
        size_t dot = name.find('.', at);
        if (dot == std::string::npos) dot = name.size();
        probe_parts.push_back(name.substr(at, dot - at));
        at = dot + 1;
      }
      if (probe_parts[d] == parts[d]) combo[d] = static_cast<int>(v);
    }
  }
  if (std::find(combo.begin(), combo.end(), -1) != combo.end()) {
    std::printf("ERROR     regression case names an unknown combination '%s'\n",
                combination.c_str());
    return false;
  }
  const Features f = FeaturesOf(combo);
  const bool random = shape == "random";
  Schedule s = random ? RandomSchedule(seed, f)
                      : MakeSchedule(seed, 2, kFixedFaultSpanMs, Replicas(f), NeedsRegistry(f));
  if (!events.empty()) s.events = events;  // the line spells out the schedule it failed with
  std::printf("seed %llu: %s (%s)\n", static_cast<unsigned long long>(seed), combination.c_str(),
              random ? "random run" : "fixed-set shape");
  const bool held =
      Report(combination, s, RunCombination(f, s, random ? RandomLimits() : FixedLimits()));
  // A kept case of a known break is expected to fail until its fix lands; once it holds,
  // the break is taken out of exclusions.cpp (and the case then counts as any other).
  if (const std::string why = BreakReason(FeatureDimensions(), combo); !why.empty()) {
    std::printf("          %s: a known break (%s)\n",
                held ? "XPASS, the break may be fixed" : "XFAIL", why.c_str());
    ++*expected;
    return true;
  }
  return held;
}

int Usage() {
  std::fprintf(stderr,
               "usage: contract_driver --list | --excluded | --only NAME | --seed S |"
               " --random N [--seed S] [--all] | --regression | --kept S [--repeat K]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::string only;
  long random_runs = -1;
  bool seed_given = false;
  bool all = false;
  bool regression = false;
  std::optional<uint64_t> kept;  // --kept: only the kept lines of this seed
  long repeat = 1;
  uint64_t seed = std::random_device{}();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list") {
      const auto cases = AllCases();
      for (size_t k = 0; k < cases.size(); ++k) {
        std::printf("%s\t%s\n", cases[k].name.c_str(),
                    FixedSchedule(k, FeaturesOf(cases[k].combo)).ToString().c_str());
      }
      return 0;
    } else if (a == "--excluded") {
      for (const auto* list : {&KnownBreaks(), &KnownRefusals()}) {
        for (const auto& k : *list) {
          std::string va;
          std::string vb;
          for (const auto& v : k.values_a) va += (va.empty() ? "" : "|") + v;
          for (const auto& v : k.values_b) vb += (vb.empty() ? "" : "|") + v;
          std::printf("%s=%s with %s=%s\t%s: %s\n", k.dim_a.c_str(), va.c_str(), k.dim_b.c_str(),
                      vb.c_str(),
                      list == &KnownBreaks() ? "known break" : "refused by config check",
                      k.reason.c_str());
        }
      }
      return 0;
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--random" && i + 1 < argc) {
      random_runs = std::strtol(argv[++i], nullptr, 10);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
      seed_given = true;
    } else if (a == "--all") {
      all = true;
    } else if (a == "--regression") {
      regression = true;
    } else if (a == "--kept" && i + 1 < argc) {
      kept = std::strtoull(argv[++i], nullptr, 10);
      regression = true;
    } else if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1L, std::strtol(argv[++i], nullptr, 10));
    } else {
      return Usage();
    }
  }
  int failed = 0;
  if (!only.empty()) {
    const auto cases = AllCases();
    for (size_t k = 0; k < cases.size(); ++k) {
      if (cases[k].name != only) continue;
      const Features f = FeaturesOf(cases[k].combo);
      const Schedule s = FixedSchedule(k, f);
      return Report(only, s, RunCombination(f, s, FixedLimits())) ? 0 : 1;
    }
    std::fprintf(stderr, "contract_driver: unknown case '%s' (see --list)\n", only.c_str());
    return 2;
  }
  if (!regression && random_runs < 0 && !seed_given) return Usage();
  int expected = 0;  // runs of known breaks (XFAIL or XPASS)
  if (regression) {
    std::ifstream in(CONTRACT_SEEDS_FILE);
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& rc : ParseRegressionCases(text.str())) {
      if (kept && rc.seed != *kept) continue;
      for (long r = 0; r < repeat; ++r) {
        const bool held = rc.combination.empty()
                              ? RunSeed(rc.seed, false)
                              : RunNamed(rc.seed, rc.combination, rc.shape, rc.events, &expected);
        failed += held ? 0 : 1;
      }
    }
  }
  if (random_runs >= 0) {
    std::printf("contract_driver --random %ld, base seed %llu\n", random_runs,
                static_cast<unsigned long long>(seed));
    for (long k = 0; k < random_runs; ++k) {
      failed += RunSeed(seed + static_cast<uint64_t>(k), all) ? 0 : 1;
    }
  } else if (seed_given && !regression) {
    failed += RunSeed(seed, all) ? 0 : 1;
  }
  if (expected > 0) std::printf("\n%d run(s) of known breaks (XFAIL/XPASS above)", expected);
  std::printf("\n%s: %d failed run(s)\n", failed ? "FAIL" : "PASS", failed);
  return failed ? 1 : 0;
}
