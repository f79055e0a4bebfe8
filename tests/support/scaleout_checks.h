// SPDX-License-Identifier: Apache-2.0
// The checks a scale-out test makes on its replicas, whichever broker they run against (the
// embedded one, tests/integration/ownership; Apache Kafka, tests/integration/realkafka):
// who held which source table when (from the replicas' own log events), whether the running
// replicas split the tables, and what was written twice.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace snowcar::testsupport {

// One replica's hold on a source table: [from_ms, to_ms) in wall-clock milliseconds.
struct TableHold {
  std::string replica;
  int64_t from_ms = 0;
  int64_t to_ms = 0;
};
using TableHolds = std::map<std::string, std::vector<TableHold>>;  // table -> holds

// Adds the holds `log` (one replica's JSON log lines) records with its
// source.group.table_acquired / table_released events (their `at_ms`). A table still held
// when the log ends is held until `end_ms`: the moment of a kill -9, or INT64_MAX for a
// replica that is still running.
void CollectTableHolds(const std::string& replica, const std::string& log, int64_t end_ms,
                       TableHolds& holds);

// One line per pair of holds of one table by two replicas that overlap in time; empty when
// no table was ever polled by two replicas at once.
std::vector<std::string> OverlappingHolds(const TableHolds& holds);

// The tables of a /v1/source/ownership body's `owned` list; nullopt when it is not one.
std::optional<std::set<std::string>> OwnedTables(const std::string& ownership_body);

// True when the replicas' `owned` sets hold `tables` tables between them, each exactly once,
// and every replica at least `min_each`.
bool TablesPartitioned(const std::vector<std::set<std::string>>& owned, size_t tables,
                       size_t min_each);

// Number of lanes (partitions held) in a /v1/sink/partitions body; -1 when it is not one.
int SinkLanes(const std::string& partitions_body);

// Warning and error log lines of `log` counted by event name: what went wrong, if anything,
// in a replica's own words (printed by the tests beside their figures).
std::map<std::string, int> WarningEvents(const std::string& log);

// The documented duplicate bound of the source after handoffs (docs/scale-out.md,
// docs/semantics.md): a clean handoff repeats nothing; a kill -9 of an owner repeats, for each
// table it held, at most one page, plus the rows written during one snapshot interval.
size_t SourceDuplicateBound(size_t tables_of_killed_owners, size_t page_size,
                            double rows_per_second, int64_t snapshot_interval_ms);

}  // namespace snowcar::testsupport
