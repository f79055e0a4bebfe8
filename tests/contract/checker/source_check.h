// SPDX-License-Identifier: Apache-2.0
// The source's promises on one table topic (docs/semantics.md, Source), checked against what
// the instance holds at the end: nothing lost, per-key order, the last record per key equal to
// the final state, duplicates within the bound, every record decodable.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "checker/decode.h"
#include "checker/records.h"

namespace snowcar::contract {

// One row of the instance's final table.
struct FinalRow {
  std::string sys_id;
  int64_t mod_count = 0;
  std::string updated_by;
};

struct SourceExpectations {
  std::vector<FinalRow> rows;      // the instance's table at the end
  std::set<std::string> deleted;   // sys_ids deleted during the run (and not back)
  bool deletes_audit = false;      // deletes=audit or audit+reconcile: every deletion is reported
  bool deletes_reconcile = false;  // deletes=reconcile or audit+reconcile: emitted rows' deletions
  // echo=suppress: a version the sink wrote (sys_updated_by = sink_user) may be absent.
  bool suppress_sink_versions = false;
  // The sink's user: a record marked snow.origin=sink must be a version this user wrote
  // (marks can be missing, never wrong). Empty: marks are not checked.
  std::string sink_user;
  int64_t duplicate_bound = 0;  // most repeated records allowed on this topic
  // Rows an ACL hid from the integration user for a while (a hidden-rows fault). A version
  // read only while hidden is never read again unless the row changes, and reconciliation
  // takes a hidden row for a deleted one and re-emits it once it shows again
  // (docs/source.md, Hidden rows; docs/semantics.md, Reconciliation). So for these keys a
  // missing final version, a stale last record, an UPSERT after a DELETE and repeats are
  // allowed; their versions must still never go back, and every record must decode.
  std::set<std::string> hidden;
};

// Decodes every record of `dump` with `decoder` and checks it against `want`.
Verdict CheckSourceTopic(const TopicDump& dump, SourceDecoder& decoder,
                         const SourceExpectations& want);

}  // namespace snowcar::contract
