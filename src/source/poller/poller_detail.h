// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the table poller's files (table_poller*.cpp); private to the source.
#pragma once

#include <cstdint>
#include <string>

#include "snowcar/common/time.h"
#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/servicenow/table_client.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source::poller_detail {

inline int64_t NowMs() { return SystemClock::Instance().NowMillis(); }

// Whether cursor a lies after cursor b in the (timestamp, sys_id) order rows are read in.
inline bool SortsAfter(const state::Cursor& a, const state::Cursor& b) {
  return a.ts > b.ts || (a.ts == b.ts && a.sys_id > b.sys_id);
}

// What a failed read of this table leads to: the decision table's GET page column.
inline servicenow::Action Decision(const servicenow::CallResult& result) {
  return servicenow::Decide(result, servicenow::CallPurpose::kGetPage);
}

// Why the instance as a whole cannot be used (a pause): nothing about this table is wrong,
// so it waits and tries again by itself, naming the cause.
inline std::string PauseCause(const servicenow::CallResult& result) {
  if (result.klass == servicenow::OutcomeClass::kUnauthorized) {
    return "the credentials were refused (HTTP 401 after a fresh login; check "
           "snow.auth.username / snow.auth.password or the OAuth settings); waiting for the "
           "instance to accept them";
  }
  return "could not reach the instance";
}

}  // namespace snowcar::source::poller_detail
