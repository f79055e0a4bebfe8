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
  kKill9,         // kill -9 of a replica, restarted at once on its state dir
  kSigterm,       // graceful stop of a replica and a restart
  kRateLimit,     // the instance answers 429 with Retry-After to the next writes and reads
  kServerError,   // the instance answers 503 to the next requests
  kLatency,       // every answer of the instance waits longer for a while
  kReplicaCycle,  // the second replica leaves the groups and joins again (two rebalances)
  kBrokerDown,    // the broker is down for a moment, then up
};

const char* FaultName(FaultKind kind);

struct FaultEvent {
  int at_ms = 0;  // after the run's start
  FaultKind kind = FaultKind::kKill9;
  int replica = 0;  // which replica (kill -9, SIGTERM)
  int amount = 0;   // requests (429, 503), ms (latency, broker down), s (Retry-After)
};

struct Schedule {
  uint64_t seed = 0;
  std::vector<FaultEvent> events;  // in time order
  std::string ToString() const;
};

// `count` faults spread over [500, span_ms]; kReplicaCycle only when `replicas` > 1.
Schedule MakeSchedule(uint64_t seed, int count, int span_ms, int replicas);

// A kept regression case: a seed, and optionally the combination it ran (its name as
// ComboName prints it). Without a combination the seed picks one as a random run does.
struct RegressionCase {
  uint64_t seed = 0;
  std::string combination;
  std::string shape = "fixed";  // with a combination: "fixed" or "random" (contract_driver)
};
// One case per line of `text`: "SEED [COMBINATION [fixed|random]]", '#' starts a comment.
std::vector<RegressionCase> ParseRegressionCases(const std::string& text);

}  // namespace snowcar::contract
