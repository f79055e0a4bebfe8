// SPDX-License-Identifier: Apache-2.0
// One contract run: a feature combination under a fault schedule, end to end against real
// processes (snowcar emulate, snowcar broker, snowcar registry when the format needs it, one or
// two `snowcar run` replicas running both directions), then the checker on what they left.
#pragma once

#include <string>

#include "run_config.h"
#include "schedule.h"

namespace snowcar::contract {

enum class Outcome { kPass, kRefused, kViolation, kVoid, kError };
const char* OutcomeName(Outcome o);

struct RunResult {
  Outcome outcome = Outcome::kError;
  std::string detail;  // refusal reason, violations, or what went wrong
  double seconds = 0;
  std::string facts;   // records, commands, reports, deletions seen
  std::string phases;  // time per phase of the run
};

struct RunLimits {
  int span_ms = 5000;  // the schedule's window; commands and deletions flow meanwhile
  int settle_s = 45;   // how long the run may take to converge after the window
  // A refusal case: only `config check` is asked; accepted, the run stops there (kPass with
  // that said) and the driver fails it (RefusalMismatch).
  bool refusal_only = false;
};

RunResult RunCombination(const Features& f, const Schedule& schedule, const RunLimits& limits);

}  // namespace snowcar::contract
