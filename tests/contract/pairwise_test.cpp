// SPDX-License-Identifier: Apache-2.0
// The covering set covers every pair; schedules are a function of their seed.
#include "pairwise.h"

#include <gtest/gtest.h>

#include <set>

#include "exclusions.h"
#include "run_config.h"
#include "schedule.h"

namespace snowcar::contract {
namespace {

TEST(Pairwise, EveryPairOfFeatureValuesIsInSomeCombination) {
  const auto& dims = FeatureDimensions();
  const auto set = AllPairs(dims);
  EXPECT_TRUE(UncoveredPairs(dims, set).empty());
  // 4 x 4 values need at least 16 rows; the greedy set stays close to that.
  EXPECT_GE(set.size(), 16u);
  EXPECT_LE(set.size(), 24u);
}

TEST(Pairwise, TheCheckOfTheCheckNoticesAMissingPair) {
  const auto& dims = FeatureDimensions();
  auto set = AllPairs(dims);
  set.pop_back();
  EXPECT_FALSE(UncoveredPairs(dims, set).empty());
}

TEST(Pairwise, CoversSmallHandMadeDimensionsToo) {
  const std::vector<Dimension> dims = {
      {"a", {"0", "1", "2"}}, {"b", {"x", "y"}}, {"c", {"p", "q", "r"}}, {"d", {"u", "v"}}};
  const auto set = AllPairs(dims);
  EXPECT_TRUE(UncoveredPairs(dims, set).empty());
  EXPECT_GE(set.size(), 9u);
}

TEST(Pairwise, TheFixedSetCoversEveryPairButTheKnownBreaksAndHoldsNone) {
  const auto& dims = FeatureDimensions();
  const auto filter = WithoutKnownBreaks(dims);
  const auto set = AllPairs(dims, filter);
  EXPECT_TRUE(UncoveredPairs(dims, set, filter).empty());
  EXPECT_TRUE(RefusedPairsUsed(dims, set, filter).empty());
  for (const auto& c : set) EXPECT_EQ(BreakReason(dims, c), "") << ComboName(dims, c);
  // Without the filter the known breaks would be required: the filter is what drops them.
  // With none left (audit+reconcile runs again), the set covers every pair.
  EXPECT_EQ(UncoveredPairs(dims, set).empty(), KnownBreaks().empty());
}

TEST(Pairwise, RunsAndRefusalsTogetherCoverEveryPairButTheKnownBreaks) {
  const auto& dims = FeatureDimensions();
  const auto runnable = Runnable(dims);
  auto set = AllPairs(dims, runnable);
  EXPECT_TRUE(UncoveredPairs(dims, set, runnable).empty());
  EXPECT_TRUE(RefusedPairsUsed(dims, set, runnable).empty());
  const auto refusals = RefusalCases(dims);
  // 3 typed formats x envelope; exactly-once x the 2 reconciling delete modes, and x two
  // replicas.
  EXPECT_EQ(refusals.size(), 6u);
  set.insert(set.end(), refusals.begin(), refusals.end());
  EXPECT_TRUE(UncoveredPairs(dims, set, WithoutKnownBreaks(dims)).empty());
}

// The value of dimension `name` in `c`.
std::string ValueOf(const Combination& c, const std::string& name) {
  return Describe(FeatureDimensions(), c).at(name);
}

TEST(Pairwise, ExactlyOnceRunsWithEveryValueConfigCheckAcceptsAndIsRefusedWithTheRest) {
  const auto& dims = FeatureDimensions();
  const auto set = AllPairs(dims, Runnable(dims));
  std::set<std::string> formats;
  for (const auto& c : set) {
    if (ValueOf(c, "exactly_once") != "on") continue;
    formats.insert(ValueOf(c, "format"));
    const std::string deletes = ValueOf(c, "deletes");
    EXPECT_TRUE(deletes == "none" || deletes == "audit") << ComboName(dims, c);
    EXPECT_EQ(ValueOf(c, "replicas"), "1") << ComboName(dims, c);
  }
  EXPECT_EQ(formats.size(), 4u);
  // Every refused pair of exactly-once has a case that expects the refusal.
  std::set<std::string> refused;
  for (const auto& c : RefusalCases(dims)) {
    if (ValueOf(c, "exactly_once") != "on") continue;
    ASSERT_NE(ExpectedRefusal(dims, c), nullptr) << ComboName(dims, c);
    refused.insert(ValueOf(c, "deletes") + "/" + ValueOf(c, "replicas"));
  }
  EXPECT_EQ(refused, (std::set<std::string>{"reconcile/1", "audit+reconcile/1", "none/2"}));
}

TEST(Pairwise, ANameReadsBackAsItsCombinationAndOldNamesMeanExactlyOnceOff) {
  const auto& dims = FeatureDimensions();
  auto set = AllPairs(dims, Runnable(dims));
  for (const auto& c : RefusalCases(dims)) set.push_back(c);
  for (const auto& c : set) {
    const auto back = ParseComboName(dims, ComboName(dims, c));
    ASSERT_TRUE(back.has_value()) << ComboName(dims, c);
    EXPECT_EQ(*back, c) << ComboName(dims, c);
  }
  // regression_seeds.txt names combinations from before the dimension: they run with it off.
  const auto old = ParseComboName(dims, "json.both.p4.tomb.noenv.key.mark.r2");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(ValueOf(*old, "exactly_once"), "off");
  const auto on = ParseComboName(dims, "avro.none.p1.notomb.noenv.partition.suppress.r1.eos");
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(ValueOf(*on, "exactly_once"), "on");
  EXPECT_FALSE(ParseComboName(dims, "json.both.p4.tomb.noenv.key.mark").has_value());
  EXPECT_FALSE(ParseComboName(dims, "json.both.p4.tomb.noenv.key.mark.r2.eos.x").has_value());
  EXPECT_FALSE(ParseComboName(dims, "xml.both.p4.tomb.noenv.key.mark.r2").has_value());
}

TEST(Pairwise, ARefusalIsAssertedNotSkipped) {
  const auto& dims = FeatureDimensions();
  const auto eos_reconcile =
      ParseComboName(dims, "json.reconcile.p1.notomb.noenv.partition.mark.r1.eos");
  ASSERT_TRUE(eos_reconcile.has_value());
  const std::string text =
      "config: exactly.once.source.support=required cannot be combined with "
      "snow.table.inc.deletes=reconcile";
  EXPECT_EQ(RefusalMismatch(dims, *eos_reconcile, true, text), "");
  // Accepted although a refusal is expected: the pair must leave KnownRefusals() and run.
  EXPECT_NE(RefusalMismatch(dims, *eos_reconcile, false, ""), "");
  // Refused without naming the keys to change.
  EXPECT_NE(RefusalMismatch(dims, *eos_reconcile, true, "config: not supported"), "");
  // deletes=audit composes with exactly-once: it runs, and a refusal of it is a failure.
  const auto eos_audit = ParseComboName(dims, "json.audit.p1.notomb.noenv.partition.mark.r1.eos");
  ASSERT_TRUE(eos_audit.has_value());
  EXPECT_EQ(ExpectedRefusal(dims, *eos_audit), nullptr);
  EXPECT_NE(RefusalMismatch(dims, *eos_audit, true, "config: no"), "");
  // A runnable combination refused: a new refusal nobody listed hides its pairs.
  const auto plain = ParseComboName(dims, "json.none.p1.notomb.noenv.partition.mark.r1.eos");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(ExpectedRefusal(dims, *plain), nullptr);
  EXPECT_EQ(RefusalMismatch(dims, *plain, false, ""), "");
  EXPECT_NE(RefusalMismatch(dims, *plain, true, "config: no"), "");
}

TEST(RunConfig, ExactlyOnceRunsAreRequiredOnTheirOwnAliasesWithADuplicateBoundOfZero) {
  const auto& dims = FeatureDimensions();
  const auto c = ParseComboName(dims, "json.none.p1.notomb.noenv.partition.mark.r1.eos");
  ASSERT_TRUE(c.has_value());
  const Features f = Describe(dims, *c);
  Endpoints ep;
  ep.inc_alias = "inc42n1";
  ep.ctr_alias = "ctr42n1";
  ep.state_topic = "ct-state-1";
  const auto props = ReplicaProps(f, ep, 0, "/tmp/x");
  EXPECT_EQ(props.at("exactly.once.source.support"), "required");
  EXPECT_EQ(props.at("snow.source.exactly.once.state.topic"), "ct-state-1");
  EXPECT_EQ(props.at("snow.tables"), "ctr42n1,inc42n1");
  EXPECT_EQ(props.at("snow.table.inc42n1.name"), "incident");
  Schedule s;
  s.events = {{600, FaultKind::kKill9, 0, 0, 0},
              {900, FaultKind::kSigterm, 0, 0, 0},
              {1200, FaultKind::kBrokerDown, 0, 800, 0}};
  EXPECT_EQ(SourceDuplicateBound(f, s), 0);
  Features off = f;
  off["exactly_once"] = "off";
  EXPECT_EQ(SourceDuplicateBound(off, s), 3 * kBatch);
  EXPECT_EQ(ReplicaProps(off, ep, 0, "/tmp/x").count("exactly.once.source.support"), 0u);
  EXPECT_EQ(props.count("transaction.boundary"), 0u);  // poll, the default
  Features interval = f;
  interval["transaction_boundary"] = "interval";
  EXPECT_EQ(ReplicaProps(interval, ep, 0, "/tmp/x").at("transaction.boundary"), "interval");
}

TEST(Schedule, TheSameSeedGivesTheSameSchedule) {
  EXPECT_EQ(MakeSchedule(42, 4, 8000, 2).ToString(), MakeSchedule(42, 4, 8000, 2).ToString());
  EXPECT_NE(MakeSchedule(42, 4, 8000, 2).ToString(), MakeSchedule(43, 4, 8000, 2).ToString());
  const auto s = MakeSchedule(7, 6, 8000, 1);
  ASSERT_EQ(s.events.size(), 6u);
  for (size_t i = 0; i < s.events.size(); ++i) {
    EXPECT_NE(s.events[i].kind, FaultKind::kReplicaCycle);  // one replica: nothing to cycle
    EXPECT_GE(s.events[i].at_ms, 500);
    if (i > 0) {
      EXPECT_LE(s.events[i - 1].at_ms, s.events[i].at_ms);
    }
  }
}

TEST(Schedule, RegistryRefusalsOnlyWithARegistryAndEveryOtherKindDrawn) {
  std::set<FaultKind> without;
  std::set<FaultKind> with;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    for (const auto& e : MakeSchedule(seed, 4, 6000, 2).events) without.insert(e.kind);
    for (const auto& e : MakeSchedule(seed, 4, 6000, 2, /*registry=*/true).events) {
      with.insert(e.kind);
      if (e.kind == FaultKind::kRegistryRefusal) {
        EXPECT_TRUE(e.status == 503 || e.status == 409);
      }
    }
  }
  EXPECT_EQ(without.count(FaultKind::kRegistryRefusal), 0u);
  EXPECT_EQ(with.size(), 10u);  // every kind, lost answers and hidden rows included
}

TEST(Schedule, ReadsTheRegressionSeedsFile) {
  const auto cases = ParseRegressionCases(
      "# kept seeds\n12 # stale final after a rebalance\n\n  7 json.none.p1\nx\n");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0].seed, 12u);
  EXPECT_EQ(cases[0].combination, "");
  EXPECT_EQ(cases[1].seed, 7u);
  EXPECT_EQ(cases[1].combination, "json.none.p1");
}

TEST(Schedule, AKeptLineMaySpellOutItsScheduleAsItWasPrinted) {
  Schedule s;
  s.seed = 5;
  s.events = {{1917, FaultKind::kLatency, 0, 698, 0},
              {2000, FaultKind::kKill9, 1, 0, 0},
              {2100, FaultKind::kRegistryRefusal, 0, 900, 409}};
  const std::string printed = s.ToString();  // "seed 5: latency@1917ms(698) ..."
  const auto cases =
      ParseRegressionCases("119 json.both random " + printed.substr(printed.find(": ") + 2) +
                           " # kept\n" + "120 json.both random latency@oops\n");
  ASSERT_EQ(cases.size(), 1u);  // a fault that does not read drops its line
  Schedule again;
  again.seed = 5;
  again.events = cases[0].events;
  EXPECT_EQ(again.ToString(), printed);
  EXPECT_EQ(cases[0].shape, "random");
}

}  // namespace
}  // namespace snowcar::contract
