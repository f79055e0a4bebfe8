// SPDX-License-Identifier: Apache-2.0
#include "schedule.h"

#include <algorithm>
#include <cstdio>
#include <optional>
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
    case FaultKind::kLostAnswer:
      return "lost-answers";
    case FaultKind::kHiddenRows:
      return "hidden-rows";
    case FaultKind::kRegistryRefusal:
      return "registry-refusal";
  }
  return "?";
}

std::string Schedule::ToString() const {
  std::ostringstream out;
  out << "seed " << seed << ":";
  for (const auto& e : events) {
    out << " " << FaultName(e.kind) << "@" << e.at_ms << "ms";
    if (e.kind == FaultKind::kKill9 || e.kind == FaultKind::kSigterm) out << "/r" << e.replica;
    if (e.amount != 0)
      out << "(" << e.amount << (e.status != 0 ? "," + std::to_string(e.status) : "") << ")";
  }
  if (events.empty()) out << " no faults";
  return out.str();
}

Schedule MakeSchedule(uint64_t seed, int count, int span_ms, int replicas, bool registry) {
  // mt19937_64's output is fixed by the standard; the distributions are not, so the draws
  // use plain modulo arithmetic to give the same schedule with any standard library.
  std::mt19937_64 rng(seed);
  auto draw = [&](uint64_t n) { return static_cast<int>(rng() % n); };
  std::vector<FaultKind> kinds = {
      FaultKind::kKill9,   FaultKind::kSigterm,    FaultKind::kRateLimit,  FaultKind::kServerError,
      FaultKind::kLatency, FaultKind::kBrokerDown, FaultKind::kLostAnswer, FaultKind::kHiddenRows};
  if (replicas > 1) kinds.push_back(FaultKind::kReplicaCycle);
  if (registry) kinds.push_back(FaultKind::kRegistryRefusal);
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
      case FaultKind::kLostAnswer:
        e.amount = 1 + draw(3);
        break;  // requests applied and unanswered
      case FaultKind::kHiddenRows:
        e.amount = 1000 + draw(2000);
        break;  // ms hidden
      case FaultKind::kRegistryRefusal:
        e.amount = 500 + draw(2000);
        e.status = draw(2) == 0 ? 503 : 409;
        break;  // ms refused
      default:
        break;
    }
    s.events.push_back(e);
  }
  std::stable_sort(s.events.begin(), s.events.end(),
                   [](const FaultEvent& a, const FaultEvent& b) { return a.at_ms < b.at_ms; });
  return s;
}

namespace {
// One fault as Schedule::ToString prints it: KIND@Tms[/rN][(A[,S])].
std::optional<FaultEvent> ParseFault(const std::string& text) {
  const size_t at = text.find('@');
  if (at == std::string::npos) return std::nullopt;
  FaultEvent e;
  bool known = false;
  for (int k = 0; k <= static_cast<int>(FaultKind::kRegistryRefusal); ++k) {
    if (text.compare(0, at, FaultName(static_cast<FaultKind>(k))) != 0) continue;
    if (at != std::string(FaultName(static_cast<FaultKind>(k))).size()) continue;
    e.kind = static_cast<FaultKind>(k);
    known = true;
  }
  int used = 0;
  if (!known || std::sscanf(text.c_str() + at + 1, "%dms%n", &e.at_ms, &used) != 1) {
    return std::nullopt;
  }
  std::string rest = text.substr(at + 1 + static_cast<size_t>(used));
  if (rest.rfind("/r", 0) == 0) {
    int n = 0;
    if (std::sscanf(rest.c_str(), "/r%d%n", &e.replica, &n) != 1) return std::nullopt;
    rest = rest.substr(static_cast<size_t>(n));
  }
  if (!rest.empty()) {
    char close = 0;
    const int got = std::sscanf(rest.c_str(), "(%d,%d%c", &e.amount, &e.status, &close);
    const bool ok = (got == 3 && close == ')') ||
                    (std::sscanf(rest.c_str(), "(%d%c", &e.amount, &close) == 2 && close == ')');
    if (!ok) return std::nullopt;
  }
  return e;
}
}  // namespace

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
    bool read = true;
    for (std::string fault; read && words >> fault;) {
      auto e = ParseFault(fault);
      if (e) c.events.push_back(*e);
      read = e.has_value();
    }
    if (read) out.push_back(c);
  }
  return out;
}

}  // namespace snowcar::contract
