// SPDX-License-Identifier: Apache-2.0
// contract_driver: runs feature combinations of snowcar under fault schedules and checks each
// run with the contract checker (docs/reliability.md, The contract checker).
//
//   contract_driver --list               the fixed set: one case per all-pairs combination
//                                        ("kafka" after an exactly-once run's schedule)
//   contract_driver --only NAME          one case of the fixed set (what ctest runs)
//   contract_driver --random N [--seed S] N random schedules; seed S+k picks run k's
//                                        combination and schedule, and is printed
//   contract_driver --seed S             the run of seed S alone (a failing seed, again)
//   ... --all                            draw from every combination, known breaks included
//   ... --with DIM=VALUE                 draw only combinations with that value (repeatable),
//                                        e.g. --with exactly_once=on
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
#include <map>
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
// The fixed set's schedule from `seed`. In an exactly-once case a broker outage becomes a
// kill -9 of replica 0 at the same moment: an outage of Apache Kafka needs a broker of the
// run's own (real_broker.h), which costs the case 20 to 40 s of start and restart, and the
// kill is the fault exactly-once is most about. Random runs keep their broker outages.
Schedule FixedShape(uint64_t seed, const Features& f) {
  Schedule s = MakeSchedule(seed, 2, kFixedFaultSpanMs, Replicas(f), NeedsRegistry(f));
  for (auto& e : s.events) {
    if (ExactlyOnce(f) && e.kind == FaultKind::kBrokerDown)
      e = {e.at_ms, FaultKind::kKill9, 0, 0, 0};
  }
  return s;
}
Schedule FixedSchedule(size_t index, const Features& f) { return FixedShape(1000 + index, f); }

RunLimits FixedLimits() {
  RunLimits limits;
  limits.span_ms = 2500;
  return limits;
}

// Runs `combo`. One that KnownRefusals() expects refused stops after config check, and a
// verdict of config check other than the expected one (a refusal that went away, a new one, a
// text that does not name its keys) fails the run: a combination holds every invariant or is
// refused with a reason, never skipped.
RunResult RunJudged(const Combination& combo, const Schedule& s, RunLimits limits) {
  const auto& dims = FeatureDimensions();
  limits.refusal_only = ExpectedRefusal(dims, combo) != nullptr;
  RunResult r = RunCombination(FeaturesOf(combo), s, limits);
  if (r.outcome == Outcome::kRefused || limits.refusal_only) {
    const std::string why = RefusalMismatch(dims, combo, r.outcome == Outcome::kRefused, r.detail);
    if (!why.empty()) {
      r.outcome = Outcome::kViolation;
      r.detail = why;
    }
  }
  return r;
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

// --with DIM=VALUE: random runs draw only combinations with these values (a seed then names
// its run together with them, and they are printed with it).
std::map<std::string, std::string> g_with;

bool RunSeed(uint64_t seed, bool all) {
  std::vector<Case> cases;
  std::string with;
  for (const auto& [dim, value] : g_with)
    with.append(" --with ").append(dim).append("=").append(value);
  for (auto& c : AllCases(all ? Set::kAll : Set::kRunnable)) {
    const Features f = FeaturesOf(c.combo);
    bool fits = true;
    for (const auto& [dim, value] : g_with) fits = fits && f.count(dim) && f.at(dim) == value;
    if (fits) cases.push_back(std::move(c));
  }
  if (cases.empty()) {
    std::printf("ERROR     no combination has%s\n", with.c_str());
    return false;
  }
  const Case& c = cases[seed % cases.size()];
  const Features f = FeaturesOf(c.combo);
  const Schedule s = RandomSchedule(seed, f);
  const RunLimits limits = RandomLimits();
  std::printf("seed %llu%s%s: %s\n", static_cast<unsigned long long>(seed), all ? " (--all)" : "",
              with.c_str(), c.name.c_str());
  if (const std::string why = BreakReason(FeatureDimensions(), c.combo); !why.empty()) {
    std::printf("          a known break: %s\n", why.c_str());
  }
  return Report(c.name, s, RunJudged(c.combo, s, limits));
}

// A kept case that names its combination, run in the shape it failed in: "fixed" (two faults
// in a 2.5 s window, as the fixed set) or "random" (as a random run), whatever the
// combination's place in today's sets.
bool RunNamed(uint64_t seed, const std::string& combination, const std::string& shape,
              const std::vector<FaultEvent>& events, int* expected) {
  // The combination from its name, one part per dimension (exactly-once off adds none).
  const auto& dims = FeatureDimensions();
  const std::optional<Combination> parsed = ParseComboName(dims, combination);
  if (!parsed) {
    std::printf("ERROR     regression case names an unknown combination '%s'\n",
                combination.c_str());
    return false;
  }
  const Combination& combo = *parsed;
  const Features f = FeaturesOf(combo);
  const bool random = shape == "random";
  Schedule s = random ? RandomSchedule(seed, f) : FixedShape(seed, f);
  if (!events.empty()) s.events = events;  // the line spells out the schedule it failed with
  std::printf("seed %llu: %s (%s)\n", static_cast<unsigned long long>(seed), combination.c_str(),
              random ? "random run" : "fixed-set shape");
  const bool held =
      Report(combination, s, RunJudged(combo, s, random ? RandomLimits() : FixedLimits()));
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
               " --random N [--seed S] [--all] [--with DIM=VALUE] | --regression |"
               " --kept S [--repeat K]\n");
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
        // "kafka": the case runs on Apache Kafka (ctest gives it the broker fixture); a
        // refusal case only asks config check.
        const Features f = FeaturesOf(cases[k].combo);
        const bool kafka =
            ExactlyOnce(f) && ExpectedRefusal(FeatureDimensions(), cases[k].combo) == nullptr;
        std::printf("%s\t%s%s\n", cases[k].name.c_str(), FixedSchedule(k, f).ToString().c_str(),
                    kafka ? "\tkafka" : "");
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
    } else if (a == "--with" && i + 1 < argc && std::strchr(argv[i + 1], '=') != nullptr) {
      const std::string kv = argv[++i];
      g_with[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
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
      return Report(only, s, RunJudged(cases[k].combo, s, FixedLimits())) ? 0 : 1;
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
