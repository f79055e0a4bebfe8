// SPDX-License-Identifier: Apache-2.0
// A reconciliation page's last checks before it is produced (reconciler.h): rows the row
// stream emitted since the sweep read them, and deletions the audit stream emitted meanwhile.
#include <map>
#include <optional>

#include "reconcile_sweep.h"
#include "reconciler.h"
#include "snowcar/common/log.h"
#include "snowcar/source/rows/keyset_query.h"

namespace snowcar::source {

bool Reconciler::DropSuperseded() {
  if (page_.held.empty()) return true;
  // A held row waited through the batch's other reads and the DELETE gate: the row stream may
  // have emitted the row meanwhile, a newer version included, and this one would then land
  // after it on the topic. What the row stream emitted is in its dedup index (committed with
  // its cursor, by (timestamp, sys_mod_count)) or, acknowledged and not yet committed, noted
  // in EmittedIds.
  std::map<std::string, std::optional<RowVersion>> emitted;
  for (const Page::HeldRow& h : page_.held) emitted.emplace(h.sys_id, std::nullopt);
  auto entries = deps_.store->DedupEntries(IdentityFor(*deps_.source, *deps_.table));
  if (!entries.ok()) {
    Retry("checking rows never emitted against the row stream: " + entries.status().message());
    return false;
  }
  for (const state::DedupKey& e : *entries) {
    auto it = emitted.find(e.sys_id);
    if (it == emitted.end()) continue;
    const RowVersion v{e.ts, e.mod_count};
    if (!it->second || *it->second < v) it->second = v;
  }
  size_t dropped = 0;
  for (Page::HeldRow& h : page_.held) {
    const std::optional<RowVersion>& newest = emitted.at(h.sys_id);
    if ((newest && !(*newest < h.version)) || deps_.emitted->Noted(h.sys_id)) {
      ++dropped;
      continue;
    }
    deps_.emitted->ReleaseClaim(h.sys_id);  // the row is back: its next deletion is new
    page_.records.push_back(std::move(h.record));
    page_.add.push_back(std::move(h.sys_id));
  }
  page_.held.clear();
  if (dropped > 0) {
    SNOWCAR_LOG(kInfo, "source.reconcile_superseded",
                {{"table", deps_.table->alias},
                 {"rows", static_cast<int64_t>(dropped)},
                 {"why", "the row stream emitted them since the sweep read them"}});
  }
  return true;
}

bool Reconciler::DropDeletedMeanwhile() {
  if (page_.gone.empty()) return true;
  // The ids were found gone before the confirmation and the DELETE gate, which the audit
  // stream's DELETEs wait for too: its DELETE of a row, acknowledged (the id left the set) or
  // in flight (it claimed the id), would be repeated by a second one.
  Status s = deps_.emitted->Flush(*deps_.store, deps_.source->instance, deps_.table->alias);
  std::vector<std::string> still;
  for (const std::string& id : page_.gone) {
    if (!s.ok()) break;
    auto in =
        deps_.store->IdSetRange(deps_.source->instance, deps_.table->alias, IdBefore(id), id, 1);
    if (!in.ok()) s = in.status();
    const bool kept = in.ok() && !in->empty() && in->front() == id &&
                      deps_.emitted->ClaimSweepDelete(id, page_.gone_seen_at_ms / 1000);
    if (kept) still.push_back(id);
  }
  if (!s.ok()) {
    Retry("checking deletions against the audit stream: " + s.message());
    return false;
  }
  if (still.size() < page_.gone.size()) {
    SNOWCAR_LOG(kInfo, "source.reconcile_deleted_meanwhile",
                {{"table", deps_.table->alias},
                 {"rows", static_cast<int64_t>(page_.gone.size() - still.size())}});
  }
  page_.gone = std::move(still);
  return true;
}

}  // namespace snowcar::source
