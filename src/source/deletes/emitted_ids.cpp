// SPDX-License-Identifier: Apache-2.0
// The ids a table's pollers emitted or deleted, waiting for the reconciliation's id set
// (reconciler.h).
#include <algorithm>
#include <vector>

#include "reconciler.h"

namespace snowcar::source {
namespace {

bool IsHexId(std::string_view id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

bool EmittedIds::Note(std::string_view sys_id, bool add) {
  const bool tracked = IsHexId(sys_id);  // the set keeps 32-hex ids only (docs/state-store.md)
  MutexLock lock(mu_);
  if (tracked) {
    pending_[std::string(sys_id)] = add;
    noted_.emplace(sys_id);
  }
  // An acknowledged version of the row: it is back (or never went), so no claim holds.
  if (add) claims_.erase(std::string(sys_id));
  return noted_.size() >= kFlushAt;
}

bool EmittedIds::ClaimAuditDelete(std::string_view sys_id, int64_t deleted_s) {
  MutexLock lock(mu_);
  auto [it, fresh] = claims_.try_emplace(std::string(sys_id));
  // A sweep that saw the row gone at or after this entry's second emitted this deletion; one
  // it saw gone earlier was a deletion before a restore, and this entry is a new one.
  if (!fresh && it->second.by_sweep && it->second.second >= deleted_s) return false;
  it->second = Claim{false, deleted_s, ++claims_made_};
  if (claims_.size() > kClaimsKept) ForgetOldestClaims();
  return true;
}

bool EmittedIds::ClaimSweepDelete(std::string_view sys_id, int64_t gone_s) {
  MutexLock lock(mu_);
  auto [it, fresh] = claims_.try_emplace(std::string(sys_id));
  // Any DELETE the audit stream produced of the row stands for this deletion: a restore since
  // would have released the claim (its UPSERT), and the audit stream emits every later entry.
  if (!fresh && !it->second.by_sweep) return false;
  it->second = Claim{true, gone_s, ++claims_made_};
  if (claims_.size() > kClaimsKept) ForgetOldestClaims();
  return true;
}

void EmittedIds::ReleaseClaim(std::string_view sys_id) {
  MutexLock lock(mu_);
  claims_.erase(std::string(sys_id));
}

void EmittedIds::ForgetOldestClaims() {
  std::vector<uint64_t> orders;
  orders.reserve(claims_.size());
  for (const auto& [id, claim] : claims_) orders.push_back(claim.order);
  auto middle = orders.begin() + static_cast<std::ptrdiff_t>(orders.size() / 2);
  std::nth_element(orders.begin(), middle, orders.end());
  const uint64_t cut = *middle;
  std::erase_if(claims_, [cut](const auto& entry) { return entry.second.order < cut; });
}

bool EmittedIds::Noted(std::string_view sys_id) const {
  MutexLock lock(mu_);
  return noted_.contains(std::string(sys_id));
}

bool EmittedIds::FlushDue() const {
  MutexLock lock(mu_);
  return noted_.size() >= kFlushAt;
}

Status EmittedIds::Flush(state::StateStore& store, std::string_view instance,
                         std::string_view table, bool keep_notes) {
  std::unordered_map<std::string, bool> taken;
  {
    MutexLock lock(mu_);
    taken.swap(pending_);
    if (!keep_notes) noted_.clear();
  }
  if (taken.empty()) return Status::Ok();
  std::vector<std::string> add;
  std::vector<std::string> remove;
  for (auto& [id, added] : taken) (added ? add : remove).push_back(id);
  Status s = store.UpdateIdSet(instance, table, add, remove);
  if (!s.ok()) {
    MutexLock lock(mu_);
    for (auto& [id, added] : taken) {
      pending_.try_emplace(id, added);  // newer notes win
      noted_.insert(id);
    }
  }
  return s;
}

}  // namespace snowcar::source
