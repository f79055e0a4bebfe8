// SPDX-License-Identifier: Apache-2.0
#include "checker/source_check.h"

#include <map>
#include <tuple>

namespace snowcar::contract {
namespace {

struct KeyHistory {
  std::set<int32_t> partitions;
  std::vector<DecodedRecord> records;  // in (partition, offset) order
};

std::string Where(const KafkaRecord& r) {
  return "[" + std::to_string(r.partition) + "@" + std::to_string(r.offset) + "]";
}

const char* OpName(Operation op) {
  switch (op) {
    case Operation::kUpsert:
      return "UPSERT";
    case Operation::kDelete:
      return "DELETE";
    case Operation::kTombstone:
      return "TOMBSTONE";
  }
  return "?";
}

// `exists_at_end`: an UPSERT may follow a DELETE (an undelete, or a hidden row shown again).
void CheckOrder(const std::string& key, const KeyHistory& h, bool exists_at_end, Verdict& verdict) {
  if (h.partitions.size() > 1) {
    verdict.Add(ViolationKind::kReorder, key + " is on " + std::to_string(h.partitions.size()) +
                                             " partitions: Kafka keeps no order between them");
  }
  int64_t highest = -1;
  bool gone = false;
  for (const auto& r : h.records) {
    if (r.op == Operation::kUpsert) {
      if (r.mod_count < highest) {
        verdict.Add(ViolationKind::kReorder, key + " goes back from version " +
                                                 std::to_string(highest) + " to " +
                                                 std::to_string(r.mod_count));
      }
      // No undelete brings a row back unless it exists at the end.
      if (gone && !exists_at_end) {
        verdict.Add(ViolationKind::kReorder, key + " has an UPSERT (version " +
                                                 std::to_string(r.mod_count) +
                                                 ") after its DELETE, and the row is gone");
      }
      gone = false;
      highest = std::max(highest, r.mod_count);
    } else {
      gone = true;
    }
  }
}

}  // namespace

Verdict CheckSourceTopic(const TopicDump& dump, SourceDecoder& decoder,
                         const SourceExpectations& want) {
  Verdict verdict;
  CheckWatermarks(dump, verdict);
  if (verdict.void_check) return verdict;

  std::map<std::string, KeyHistory> keys;
  // Per key, operation and version: how many copies, and where the first one is (how far a
  // repeat lands from it tells a page read again from a replay after a restart).
  struct Copies {
    int n = 0;
    int64_t first_offset = 0;
  };
  std::map<std::tuple<std::string, int, int64_t>, Copies> copies;
  int64_t repeats = 0;
  std::string repeated;  // the first repeats, to tell a replayed page from a re-emitted row
  for (const auto& record : dump.records) {
    auto decoded = decoder.Decode(record);
    if (!decoded.ok()) {
      verdict.Add(ViolationKind::kUndecodable,
                  dump.topic + Where(record) + ": " + decoded.status().message());
      continue;
    }
    if (decoded->origin_sink && !want.sink_user.empty() && decoded->op == Operation::kUpsert &&
        decoded->updated_by != want.sink_user) {
      verdict.Add(ViolationKind::kWrongMark, dump.topic + Where(record) + ": version " +
                                                 std::to_string(decoded->mod_count) + " by '" +
                                                 decoded->updated_by + "' is marked as the sink's");
    }
    KeyHistory& h = keys[decoded->sys_id];
    h.partitions.insert(record.partition);
    // A repeat is the same key, operation and version again (a DELETE has no version).
    Copies& seen = copies[{decoded->sys_id, static_cast<int>(decoded->op), decoded->mod_count}];
    if (seen.n++ == 0) seen.first_offset = record.offset;
    if (seen.n > 1 && !want.hidden.contains(decoded->sys_id)) {
      ++repeats;
      if (repeats <= 8) {
        repeated += (repeated.empty() ? "" : ", ") + decoded->sys_id.substr(0, 8) + "/" +
                    OpName(decoded->op) + "/v" + std::to_string(decoded->mod_count) +
                    (decoded->found_by.empty() ? "" : "/" + decoded->found_by) + Where(record) +
                    " (first @" + std::to_string(seen.first_offset) + ")";
      }
    }
    h.records.push_back(*decoded);
  }
  if (repeats > want.duplicate_bound) {
    verdict.Add(ViolationKind::kDuplicates,
                dump.topic + ": " + std::to_string(repeats) + " repeated records, bound " +
                    std::to_string(want.duplicate_bound) + "; first: " + repeated);
  }

  std::set<std::string> existing;
  for (const auto& row : want.rows) existing.insert(row.sys_id);
  for (const auto& [key, h] : keys) {
    CheckOrder(key, h, existing.count(key) > 0 || want.hidden.contains(key), verdict);
  }

  // Every final version on the topic, and the key's last record is that version.
  for (const auto& row : want.rows) {
    const bool may_be_suppressed =
        want.suppress_sink_versions && !want.sink_user.empty() && row.updated_by == want.sink_user;
    if (want.hidden.contains(row.sys_id)) continue;
    auto it = keys.find(row.sys_id);
    bool found = false;
    if (it != keys.end()) {
      for (const auto& r : it->second.records) {
        found = found || (r.op == Operation::kUpsert && r.mod_count == row.mod_count);
      }
    }
    if (!found && !may_be_suppressed) {
      verdict.Add(ViolationKind::kLost, row.sys_id + " version " + std::to_string(row.mod_count) +
                                            " is not on " + dump.topic);
      continue;
    }
    if (it == keys.end()) continue;  // suppressed and never emitted: nothing to compare
    const DecodedRecord& last = it->second.records.back();
    const bool stale =
        last.op != Operation::kUpsert ||
        (may_be_suppressed ? last.mod_count > row.mod_count : last.mod_count != row.mod_count);
    if (stale) {
      verdict.Add(ViolationKind::kStaleFinal,
                  row.sys_id + " ends with " + OpName(last.op) +
                      (last.op == Operation::kUpsert ? " version " + std::to_string(last.mod_count)
                                                     : std::string()) +
                      " on the topic, the instance holds version " + std::to_string(row.mod_count));
    }
  }

  // Deletions: audit reports each one; reconciliation the ones of rows it had emitted.
  if (want.deletes_audit || want.deletes_reconcile) {
    for (const auto& id : want.deleted) {
      if (existing.count(id) || want.hidden.contains(id)) continue;
      auto it = keys.find(id);
      const bool emitted = it != keys.end();
      if (!want.deletes_audit && !emitted) continue;
      bool has_delete = false;
      if (emitted) {
        for (const auto& r : it->second.records)
          has_delete = has_delete || r.op == Operation::kDelete;
      }
      if (!has_delete) {
        verdict.Add(ViolationKind::kLost, "the deletion of " + id + " is not on " + dump.topic);
        continue;
      }
      if (it->second.records.back().op == Operation::kUpsert) {
        verdict.Add(ViolationKind::kStaleFinal,
                    id + " was deleted but its last record on " + dump.topic + " is an UPSERT");
      }
    }
  }
  return verdict;
}

}  // namespace snowcar::contract
