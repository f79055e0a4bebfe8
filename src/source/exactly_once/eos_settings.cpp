// SPDX-License-Identifier: Apache-2.0
#include "eos_settings.h"

namespace snowcar::source::exactly_once {

void ReadSettings(const config::Config& config, SourceSettings& settings,
                  std::vector<std::string>& errors) {
  const std::string& mode = config.GetString("exactly.once.source.support");
  settings.exactly_once = mode == "required"    ? ExactlyOnce::kRequired
                          : mode == "requested" ? ExactlyOnce::kRequested
                                                : ExactlyOnce::kDisabled;
  settings.transaction_interval_ms = config.GetString("transaction.boundary") == "interval"
                                         ? config.GetInt("transaction.boundary.interval.ms")
                                         : 0;
  settings.exactly_once_state_topic = config.GetString("snow.source.exactly.once.state.topic");
  if (settings.exactly_once == ExactlyOnce::kDisabled) return;
  const std::string key = "exactly.once.source.support=" + mode;
  if (!settings.group_id.empty()) {
    // A handoff publishes the released table's snapshot outside any transaction, and the
    // next owner's producer would not fence the last one's (their ids differ by replica).
    errors.push_back(key +
                     " cannot be combined with source.group.id yet: a table's handoff "
                     "between replicas is not part of its transactions; run one replica "
                     "per table set (split snow.tables) or remove one of the two keys");
  }
  for (const TableSettings& table : settings.tables) {
    // deletes=audit composes: its stream is a poller of its own with a transaction of its own
    // (eos_start.cpp). A sweep's DELETEs and the id set it compares against are written
    // outside any poller's commit (reconcile_sweep.h, emitted_ids), so they have no
    // transaction to join.
    if (!Reconciles(table.deletes)) continue;
    errors.push_back(key + " cannot be combined with snow.table." + table.alias +
                     ".deletes=" + config.GetString("snow.table." + table.alias + ".deletes") +
                     ": the reconciliation's DELETE records, its sweep state and the id set "
                     "are not written in a transaction; use snow.table." +
                     table.alias +
                     ".deletes=audit (or none), or exactly.once.source.support=disabled");
  }
  // Parallel backfill ranges move the cursor out of page order; one range keeps one
  // transaction per page with the cursor it reached.
  settings.backfill_parallelism = 1;
}

std::string TransactionalId(const SourceSettings& settings, const TableSettings& table) {
  // The deletes stream's settings carry the alias "<alias>.deletes": its id follows.
  return "snowcar-source." + settings.instance + "." + table.alias;
}

}  // namespace snowcar::source::exactly_once
