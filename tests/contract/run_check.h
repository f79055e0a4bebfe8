// SPDX-License-Identifier: Apache-2.0
// Gathers what a run left (topics, the emulator's tables and journal, the sink group's
// committed offsets) and hands it to the checker.
#pragma once

#include <set>
#include <string>

#include "checker/records.h"
#include "run_config.h"

namespace snowcar::contract {

struct RunFacts {
  int64_t source_records = 0;
  int64_t commands = 0;
  int64_t reports = 0;
  int64_t deletions = 0;
};

// `hidden`: incident rows a hidden-rows fault hid (SourceExpectations::hidden).
Verdict CheckRun(const Features& f, const Endpoints& ep, const Schedule& schedule,
                 const std::set<std::string>& hidden, RunFacts* facts = nullptr);

// Exactly-once runs: source records a read_uncommitted reader sees beyond the `facts` that
// CheckRun read with read_committed (-1 when the topics cannot be read).
int64_t AbortedRecords(const Endpoints& ep, const RunFacts& facts);

}  // namespace snowcar::contract
