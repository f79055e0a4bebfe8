// SPDX-License-Identifier: Apache-2.0
// The sink's promises (docs/semantics.md, Sink), checked from the command topic, the success
// reports (which carry the version the instance's answer named), the DLQ, the group's
// committed offsets, the emulator's journal and its final table. Commands are PATCHes keyed by
// the row's sys_id, each setting a value no other command sets.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "checker/records.h"

namespace snowcar::contract {

struct SinkCommand {
  int32_t partition = 0;
  int64_t offset = 0;
  std::string sys_id;  // the record key: the row it patches
  std::string value;   // the value it writes (unique per command)
};

// One success report: the command it names and the row version the instance answered with.
struct SinkReport {
  int32_t partition = 0;
  int64_t offset = 0;
  std::string sys_id;
  int64_t mod_count = -1;
};

struct SinkObservation {
  std::vector<SinkCommand> commands;
  std::vector<SinkReport> reports;
  std::map<std::string, std::string> final_values;  // sys_id -> the written field at the end
  std::map<std::string, int64_t> applied_writes;    // sys_id -> 2xx writes the journal shows
  std::map<int32_t, int64_t> committed;             // partition -> committed offset (absent: none)
  std::set<std::pair<int32_t, int64_t>> dead_lettered;  // (partition, offset) in the DLQ
  std::set<int32_t> stopped_partitions;                 // lanes that stopped on a record error
};

Verdict CheckSink(const SinkObservation& seen);

}  // namespace snowcar::contract
