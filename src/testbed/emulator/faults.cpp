// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/emulator/faults.h"

#include <functional>

namespace snowcar::emulator {

std::string_view FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kRateLimit:
      return "rate_limit";
    case FaultKind::kSemaphore:
      return "semaphore";
    case FaultKind::kServerError:
      return "server_error";
    case FaultKind::kForbidden:
      return "forbidden";
    case FaultKind::kDropMidResponse:
      return "drop";
    case FaultKind::kTimedOutQuery:
      return "timed_out_query";
    case FaultKind::kMalformedJson:
      return "malformed_json";
    case FaultKind::kApplyThenDrop:
      return "apply_then_drop";
    case FaultKind::kAnswer:
      return "answer";
    case FaultKind::kDropBeforeApply:
      return "drop_before_apply";
    case FaultKind::kApplyThenStall:
      return "apply_then_stall";
  }
  return "unknown";
}

Result<FaultKind> ParseFaultKind(std::string_view name) {
  for (FaultKind k : {FaultKind::kRateLimit, FaultKind::kSemaphore, FaultKind::kServerError,
                      FaultKind::kForbidden, FaultKind::kDropMidResponse, FaultKind::kTimedOutQuery,
                      FaultKind::kMalformedJson, FaultKind::kApplyThenDrop, FaultKind::kAnswer,
                      FaultKind::kDropBeforeApply, FaultKind::kApplyThenStall}) {
    if (FaultKindName(k) == name) return k;
  }
  return Status::InvalidArgument(
      "unknown fault kind '" + std::string(name) +
      "'; expected rate_limit, semaphore, server_error, forbidden, drop, timed_out_query, "
      "malformed_json, apply_then_drop, answer, drop_before_apply or apply_then_stall");
}

bool FaultScope::Matches(std::string_view m, std::string_view path) const {
  if (!method.empty() && method != m) return false;
  return path_prefix.empty() || path.substr(0, path_prefix.size()) == path_prefix;
}

bool AclKnob::Hides(std::string_view table_name, std::string_view sys_id) const {
  if (hide_every <= 0) return false;
  if (!table.empty() && table != table_name) return false;
  return std::hash<std::string_view>{}(sys_id) % static_cast<uint64_t>(hide_every) == 0;
}

void FaultKnobs::AddRule(FaultRule rule) {
  std::lock_guard lock(mu_);
  rules_.push_back(std::move(rule));
}

void FaultKnobs::SetLatency(LatencyKnob latency) {
  std::lock_guard lock(mu_);
  latency_ = std::move(latency);
}

void FaultKnobs::SetAcl(AclKnob acl) {
  std::lock_guard lock(mu_);
  acl_ = std::move(acl);
}

void FaultKnobs::SetBatchServiceLimit(int64_t limit) {
  std::lock_guard lock(mu_);
  batch_limit_ = limit;
}

void FaultKnobs::Clear() {
  std::lock_guard lock(mu_);
  rules_.clear();
  latency_ = {};
  acl_ = {};
  batch_limit_ = -1;
}

std::optional<FaultRule> FaultKnobs::Pick(std::string_view method, std::string_view path) {
  std::lock_guard lock(mu_);
  for (auto it = rules_.begin(); it != rules_.end(); ++it) {
    if (!it->scope.Matches(method, path)) continue;
    if (it->next_n > 0) {
      FaultRule fired = *it;
      if (--it->next_n == 0) rules_.erase(it);
      return fired;
    }
    if (it->share > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < it->share) {
      return *it;
    }
  }
  return std::nullopt;
}

int64_t FaultKnobs::DelayMs(std::string_view method, std::string_view path) {
  std::lock_guard lock(mu_);
  if (latency_.fixed_ms <= 0 && latency_.jitter_ms <= 0) return 0;
  if (!latency_.scope.Matches(method, path)) return 0;
  int64_t delay = latency_.fixed_ms;
  if (latency_.jitter_ms > 0) {
    delay += std::uniform_int_distribution<int64_t>(0, latency_.jitter_ms)(rng_);
  }
  return delay;
}

AclKnob FaultKnobs::acl() const {
  std::lock_guard lock(mu_);
  return acl_;
}

int64_t FaultKnobs::batch_service_limit() const {
  std::lock_guard lock(mu_);
  return batch_limit_;
}

std::vector<FaultRule> FaultKnobs::rules() const {
  std::lock_guard lock(mu_);
  return rules_;
}

LatencyKnob FaultKnobs::latency() const {
  std::lock_guard lock(mu_);
  return latency_;
}

}  // namespace snowcar::emulator
