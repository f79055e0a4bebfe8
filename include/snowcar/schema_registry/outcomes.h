// SPDX-License-Identifier: Apache-2.0
// The Schema Registry's calls in the one outcome table (servicenow/outcome_table.h): the final
// verdict a registry error reads as, the Action its caller takes (the source's poller for
// CallPurpose::kRegisterSchema, the sink's lane for kSchemaById; neither decides otherwise),
// and the registry's failures as the wire shows them, for docs/outcomes.md and the tests.
//
// It lives here, above the table's module, because it reads the client's own errors.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/servicenow/outcome_table.h"

namespace snowcar::schema_registry {

// The row of the decision table an error of the registry client (client.h) stands for. An
// error that is not the client's (InvalidArgument of a payload that does not decode with its
// schema, of a subject name that cannot be built) reads as the refusal it is.
servicenow::FinalVerdict RegistryVerdictOf(const Status& status);

// The cell for a registry call made for `purpose` (kRegisterSchema or kSchemaById).
inline servicenow::Action DecideRegistryCall(const Status& status,
                                             servicenow::CallPurpose purpose) {
  return servicenow::Decide(RegistryVerdictOf(status), purpose);
}

// One failure of the registry as the wire shows it to every attempt.
struct RegistryFailure {
  std::string_view name = {};             // "409 incompatible", "connection refused", ...
  std::string_view what = {};             // one line: how it looks
  int http_status = 0;                    // 0: no answer (see transport_error)
  std::string_view body = {};             // the answer's body
  std::string_view transport_error = {};  // no answer: libcurl's words
  bool timed_out = false;                 // no answer: because the time ran out
};
std::span<const RegistryFailure> RegistryFailureCatalogue();

// What the client hands back once its attempts at `failure` are over, read by the client's
// own answer reading (the message names a made-up call).
struct RegistryFinal {
  bool client_retries = false;  // the client tries again while its budget lasts
  Status status;
  servicenow::FinalVerdict verdict = servicenow::FinalVerdict::kOk;
};
RegistryFinal RegistryFinalOf(const RegistryFailure& failure);

// The catalogue as rows of the registry's matrix in docs/outcomes.md.
std::vector<servicenow::RegistryMatrixRow> RegistryMatrixRows();

// docs/outcomes.md, whole (`snowcar config outcomes`).
std::string RenderOutcomesMarkdown();

}  // namespace snowcar::schema_registry
