// SPDX-License-Identifier: Apache-2.0
// Gathers what a run left (topics, the emulator's tables and journal, the sink group's
// committed offsets) and hands it to the checker.
#pragma once

#include "checker/records.h"
#include "run_config.h"

namespace snowcar::contract {

struct RunFacts {
  int64_t source_records = 0;
  int64_t commands = 0;
  int64_t reports = 0;
  int64_t deletions = 0;
};

Verdict CheckRun(const Features& f, const Endpoints& ep, const Schedule& schedule,
                 RunFacts* facts = nullptr);

}  // namespace snowcar::contract
