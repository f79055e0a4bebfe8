// SPDX-License-Identifier: Apache-2.0
#include "checker/sink_check.h"

#include <algorithm>

namespace snowcar::contract {
namespace {

std::string Cmd(const SinkCommand& c) {
  return "[" + std::to_string(c.partition) + "@" + std::to_string(c.offset) + "]";
}

// Write order of one key, from its success reports sorted by the version each write made.
// A replay (after a crash or a handover) may start again at an earlier command and go on in
// order; a write may never skip ahead past a command that was not yet written (and not
// dead-lettered). `index` maps offsets to the key's command positions.
void CheckWriteOrder(const std::string& key, const std::vector<const SinkCommand*>& cmds,
                     std::vector<SinkReport> reports,
                     const std::set<std::pair<int32_t, int64_t>>& dlq, Verdict& verdict) {
  std::map<int64_t, size_t> index;
  for (size_t i = 0; i < cmds.size(); ++i) index[cmds[i]->offset] = i;
  std::stable_sort(reports.begin(), reports.end(), [](const SinkReport& a, const SinkReport& b) {
    return a.mod_count < b.mod_count;
  });
  // A write that changed nothing (a repeat of the last value) names the version it found:
  // keep the first report of each version.
  int64_t last_version = -1;
  size_t next = 0;  // the first command not yet written in the current run
  for (const auto& r : reports) {
    if (r.mod_count == last_version) continue;
    last_version = r.mod_count;
    auto it = index.find(r.offset);
    if (it == index.end()) continue;  // reported for an offset the check did not produce
    size_t allowed = next;
    while (allowed < cmds.size() && dlq.count({cmds[allowed]->partition, cmds[allowed]->offset})) {
      ++allowed;
    }
    if (it->second > allowed) {
      verdict.Add(ViolationKind::kSinkOutOfOrder,
                  key + ": " + Cmd(*cmds[it->second]) + " was written (version " +
                      std::to_string(r.mod_count) + ") before " + Cmd(*cmds[allowed]));
    }
    next = it->second + 1;
  }
}

}  // namespace

Verdict CheckSink(const SinkObservation& seen) {
  Verdict verdict;
  std::map<std::string, std::vector<const SinkCommand*>> by_key;
  for (const auto& c : seen.commands) by_key[c.sys_id].push_back(&c);
  for (auto& [key, cmds] : by_key) {
    std::sort(cmds.begin(), cmds.end(), [](const SinkCommand* a, const SinkCommand* b) {
      return std::make_pair(a->partition, a->offset) < std::make_pair(b->partition, b->offset);
    });
  }
  std::set<std::pair<int32_t, int64_t>> reported;
  std::map<std::string, std::vector<SinkReport>> reports_by_key;
  for (const auto& r : seen.reports) {
    reported.insert({r.partition, r.offset});
    reports_by_key[r.sys_id].push_back(r);
  }

  for (const auto& [key, cmds] : by_key) {
    // The row ends with the last command that was not dead-lettered.
    const SinkCommand* last = nullptr;
    for (const auto* c : cmds) {
      if (!seen.dead_lettered.count({c->partition, c->offset})) last = c;
    }
    auto fin = seen.final_values.find(key);
    const bool stopped = !cmds.empty() && seen.stopped_partitions.count(cmds.front()->partition);
    if (last != nullptr && !stopped &&
        (fin == seen.final_values.end() || fin->second != last->value)) {
      // The reported writes in version order say whether a late write or a stall did it.
      std::vector<SinkReport> writes = reports_by_key[key];
      std::stable_sort(writes.begin(), writes.end(), [](const SinkReport& a, const SinkReport& b) {
        return a.mod_count < b.mod_count;
      });
      std::string trail;
      for (const auto& w : writes) {
        trail += (trail.empty() ? "" : " ") + std::to_string(w.offset) + "@v" +
                 std::to_string(w.mod_count);
      }
      std::string what = key + " ends at '";
      what += fin == seen.final_values.end() ? "<no row>" : fin->second;
      what += "', its last command " + Cmd(*last) + " wrote '" + last->value;
      what += "'; reported writes (offset@version): " + trail;
      verdict.Add(ViolationKind::kSinkOutOfOrder, what);
    }
    CheckWriteOrder(key, cmds, reports_by_key[key], seen.dead_lettered, verdict);

    // Below the committed offset every command was applied or dead-lettered: the journal
    // must show at least that many accepted writes of the row.
    int64_t below = 0;
    for (const auto* c : cmds) {
      auto committed = seen.committed.find(c->partition);
      if (committed == seen.committed.end() || c->offset >= committed->second) continue;
      if (!seen.dead_lettered.count({c->partition, c->offset})) ++below;
    }
    auto applied = seen.applied_writes.find(key);
    const int64_t writes = applied == seen.applied_writes.end() ? 0 : applied->second;
    if (writes < below) {
      verdict.Add(ViolationKind::kSinkUncommitted,
                  key + ": " + std::to_string(below) +
                      " commands lie below the committed offset, the instance accepted " +
                      std::to_string(writes) + " writes of the row");
    }

    // Each command ends applied (reported), dead-lettered, or its lane stopped.
    for (const auto* c : cmds) {
      if (reported.count({c->partition, c->offset}) ||
          seen.dead_lettered.count({c->partition, c->offset}) ||
          seen.stopped_partitions.count(c->partition)) {
        continue;
      }
      verdict.Add(ViolationKind::kSinkUnfinished,
                  key + ": " + Cmd(*c) + " was neither applied, dead-lettered nor stopped at");
    }
  }
  return verdict;
}

}  // namespace snowcar::contract
