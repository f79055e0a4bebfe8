// SPDX-License-Identifier: Apache-2.0
// One line of a scenario's table, and printing the table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace snowcar::fault {

struct Row {
  std::string scenario;
  int rounds = 0;
  int faults = 0;    // faults injected (kills, stops, error answers, outages, ...)
  int64_t in = 0;    // row versions (source) or commands (sink) that had to arrive
  int64_t out = 0;   // records in Kafka (source) or writes the instance received (sink)
  int64_t lost = 0;  // what had to arrive and did not
  int64_t duplicated = 0;
  int64_t bound = 0;  // the most duplicates allowed (-1: not applicable)
  // Offsets the broker dropped from the scenario's topic (the embedded broker's per-partition
  // cap): records the checker could not read, so `lost` says nothing and the row is VOID.
  int64_t evicted = 0;
  std::string extra;  // what else was checked, or why it was skipped/failed
  bool skipped = false;
  bool failed_check = false;  // a check other than loss and the bound failed

  // PASS when nothing was lost, nothing was evicted, the bound held and every other check
  // passed.
  bool pass() const {
    return skipped ||
           (!failed_check && evicted == 0 && lost == 0 && (bound < 0 || duplicated <= bound));
  }
  // VOID: the broker evicted records, so loss could not be checked (a failure of the
  // scenario's sizing, not a finding about snowcar).
  std::string verdict() const {
    return skipped ? "SKIPPED" : evicted > 0 ? "VOID" : pass() ? "PASS" : "FAIL";
  }
  // Records a failed check with its reason (several add up).
  void Fail(const std::string& why);
  void Note(const std::string& what);
  // Records that the broker dropped `offsets` of the topic (where: which partitions).
  void Evicted(int64_t offsets, const std::string& where);
};

// Prints one scenario's table (a Markdown table, so docs can paste it as is).
void PrintTable(const std::string& title, const std::vector<Row>& rows);

}  // namespace snowcar::fault
