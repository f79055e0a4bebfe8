// SPDX-License-Identifier: Apache-2.0
#include "schedule.h"

#include <algorithm>
#include <random>
#include <sstream>

namespace snowcar::contract {

const char* FaultName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kKill9:
      return "kill-9";
    case FaultKind::kSigterm:
      return "sigterm";
    case FaultKind::kRateLimit:
      return "429";
    case FaultKind::kServerError:
      return "503";
    case FaultKind::kLatency:
      return "latency";
    case FaultKind::kReplicaCycle:
      return "replica-leave-join";
    case FaultKind::kBrokerDown:
      return "broker-down";
  }
  return "?";
}

std::string Schedule::ToString() const {
  std::ostringstream out;
  out << "seed " << seed << ":";
  for (const auto& e : events) {
    out << " " << FaultName(e.kind) << "@" << e.at_ms << "ms";
    if (e.kind == FaultKind::kKill9 || e.kind == FaultKind::kSigterm) out << "/r" << e.replica;
    if (e.amount != 0) out << "(" << e.amount << ")";
  }
  if (events.empty()) out << " no faults";
  return out.str();
}

Schedule MakeSchedule(uint64_t seed, int count, int span_ms, int replicas) {
  // mt19937_64's output is fixed by the standard; the distributions are not, so the draws
  // use plain modulo arithmetic to give the same schedule with any standard library.
  std::mt19937_64 rng(seed);
  auto draw = [&](uint64_t n) { return static_cast<int>(rng() % n); };
  std::vector<FaultKind> kinds = {FaultKind::kKill9,     FaultKind::kSigterm,
                                  FaultKind::kRateLimit, FaultKind::kServerError,
                                  FaultKind::kLatency,   FaultKind::kBrokerDown};
  if (replicas > 1) kinds.push_back(FaultKind::kReplicaCycle);
  Schedule s;
  s.seed = seed;
  for (int i = 0; i < count; ++i) {
    FaultEvent e;
    e.at_ms = 500 + draw(static_cast<uint64_t>(std::max(1, span_ms - 500)));
    e.kind = kinds[draw(kinds.size())];
    e.replica = draw(static_cast<uint64_t>(std::max(1, replicas)));
    switch (e.kind) {
      case FaultKind::kRateLimit:
        e.amount = 1 + draw(3);
        break;  // Retry-After, s
      case FaultKind::kServerError:
        e.amount = 2 + draw(8);
        break;  // requests
      case FaultKind::kLatency:
        e.amount = 200 + draw(1300);
        break;  // ms per answer
      case FaultKind::kBrokerDown:
        e.amount = 500 + draw(2000);
        break;  // ms down
      default:
        break;
    }
    s.events.push_back(e);
  }
  std::stable_sort(s.events.begin(), s.events.end(),
                   [](const FaultEvent& a, const FaultEvent& b) { return a.at_ms < b.at_ms; });
  return s;
}

std::vector<RegressionCase> ParseRegressionCases(const std::string& text) {
  std::vector<RegressionCase> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line.substr(0, line.find('#')));
    std::string seed;
    if (!(words >> seed) || seed.find_first_not_of("0123456789") != std::string::npos) continue;
    RegressionCase c;
    c.seed = std::stoull(seed);
    words >> c.combination;
    std::string shape;
    if (words >> shape) c.shape = shape;
    out.push_back(c);
  }
  return out;
}

}  // namespace snowcar::contract
