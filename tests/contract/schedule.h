// SPDX-License-Identifier: Apache-2.0
// Seeded fault schedules: the same seed gives the same faults at the same moments of a run,
// so a failing seed printed by the driver reproduces its schedule (the processes' timing
// still varies; a seed is a schedule, not a replay).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace snowcar::contract {

enum class FaultKind {
  kKill9,            // kill -9 of a replica, restarted at once on its state dir
  kSigterm,          // graceful stop of a replica and a restart
  kRateLimit,        // the instance answers 429 with Retry-After to the next writes and reads
  kServerError,      // the instance answers 503 to the next requests
  kLatency,          // every answer of the instance waits longer for a while
  kReplicaCycle,     // the second replica leaves the groups and joins again (two rebalances)
  kBrokerDown,       // the broker is down for a moment, then up
  kLostAnswer,       // the instance applies the next requests but drops their answers
  kHiddenRows,       // an ACL hides every fifth incident row for a while (short pages)
  kRegistryRefusal,  // the Schema Registry answers 503 or 409 to every request for a while
};

const char* FaultName(FaultKind kind);

struct FaultEvent {
  int at_ms = 0;  // after the run's start
  FaultKind kind = FaultKind::kKill9;
  int replica = 0;  // which replica (kill -9, SIGTERM)
  int amount = 0;   // requests (503, lost answers), ms (latency, broker down, hidden rows,
                    // registry refusal), s (Retry-After of a 429)
  int status = 0;   // the registry's refusal: 503 or 409
};

struct Schedule {
  uint64_t seed = 0;
  std::vector<FaultEvent> events;  // in time order
  std::string ToString() const;
};

// `count` faults spread over [500, span_ms]; kReplicaCycle only when `replicas` > 1,
// kRegistryRefusal only when the run has a registry.
Schedule MakeSchedule(uint64_t seed, int count, int span_ms, int replicas, bool registry = false);

// A kept regression case: a seed, and optionally the combination it ran (its name as
// ComboName prints it). Without a combination the seed picks one as a random run does.
struct RegressionCase {
  uint64_t seed = 0;
  std::string combination;
  std::string shape = "fixed";  // with a combination: "fixed" or "random" (contract_driver)
  // The faults as Schedule::ToString prints them, when the line spells them out: the run then
  // keeps the schedule it failed with whatever the generator draws from the seed today.
  std::vector<FaultEvent> events;
};
// One case per line of `text`: "SEED [COMBINATION [fixed|random [FAULT...]]]", each FAULT as
// ToString prints it (latency@1917ms(698), kill-9@900ms/r1, registry-refusal@700ms(900,409));
// '#' starts a comment. A line with a fault that does not read is skipped whole.
std::vector<RegressionCase> ParseRegressionCases(const std::string& text);

}  // namespace snowcar::contract
