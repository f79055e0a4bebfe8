// SPDX-License-Identifier: Apache-2.0
// The ids a table's pollers emitted or deleted, waiting for the reconciliation's id set
// (reconciler.h).
#include <algorithm>

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
  if (tracked) pending_[std::string(sys_id)] = add;
  return pending_.size() >= kFlushAt;
}

bool EmittedIds::Noted(std::string_view sys_id) const {
  MutexLock lock(mu_);
  return pending_.contains(std::string(sys_id));
}

bool EmittedIds::FlushDue() const {
  MutexLock lock(mu_);
  return pending_.size() >= kFlushAt;
}

Status EmittedIds::Flush(state::StateStore& store, std::string_view instance,
                         std::string_view table) {
  std::unordered_map<std::string, bool> taken;
  {
    MutexLock lock(mu_);
    taken.swap(pending_);
  }
  if (taken.empty()) return Status::Ok();
  std::vector<std::string> add;
  std::vector<std::string> remove;
  for (auto& [id, added] : taken) (added ? add : remove).push_back(id);
  Status s = store.UpdateIdSet(instance, table, add, remove);
  if (!s.ok()) {
    MutexLock lock(mu_);
    for (auto& [id, added] : taken) pending_.try_emplace(id, added);  // newer notes win
  }
  return s;
}

}  // namespace snowcar::source
