// SPDX-License-Identifier: Apache-2.0
// THE table that says what a failed call leads to, for every operation the source and the sink
// send, to the instance and to the Schema Registry. classify.h decides each attempt of a Table
// API call (retry it or not); once the client's retries are over, the final verdict and the
// operation it was for are looked up here, and the sink's writer and lane and the source's
// poller act on the Action found. A Schema Registry call's verdict comes from the Status its
// client hands back (schema_registry/outcomes.h, which sits above this module); its Action is
// looked up here too. Nothing else decides it.
//
// The same table, with a catalogue of failures (what each looks like on the wire), renders
// docs/outcomes.md (`snowcar config outcomes`; a test keeps it current), so the documented
// outcome of every failure is the one the code takes.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "snowcar/servicenow/classify.h"

namespace snowcar::servicenow {

struct CallResult;

// The columns: what a call was for.
enum class CallPurpose {
  kGetPage,              // source: one page of a table (the probe and the clock read too)
  kCreateRetry,          // sink CREATE, snow.sink.create.ambiguous.behavior=retry
  kCreateFailAmbiguous,  // sink CREATE, fail_ambiguous
  kCreateCorrelation,    // sink CREATE, correlation_lookup (its POST)
  kPatch,                // sink PATCH (also the PATCH correlation_lookup sends to a found row)
  kPut,                  // sink PUT
  kDelete,               // sink DELETE
  kLookup,               // sink: the correlation lookup GET of correlation_lookup
  // Schema Registry calls (schema_registry/client.h):
  kRegisterSchema,  // source: registering a typed record's key or value schema under its subject
  kSchemaById,      // sink: the writer schema of a framed command, and decoding the command with
                    // it (a payload that does not decode reads as a refusal)
};
inline constexpr size_t kCallPurposeCount = 10;
std::string_view CallPurposeName(CallPurpose purpose);  // the column heading
// The Table API's columns: the ones the failure catalogue below is about.
inline constexpr std::array<CallPurpose, 8> kTableApiPurposes = {CallPurpose::kGetPage,
                                                                 CallPurpose::kCreateRetry,
                                                                 CallPurpose::kCreateFailAmbiguous,
                                                                 CallPurpose::kCreateCorrelation,
                                                                 CallPurpose::kPatch,
                                                                 CallPurpose::kPut,
                                                                 CallPurpose::kDelete,
                                                                 CallPurpose::kLookup};
// The Schema Registry's columns (their failures: schema_registry/outcomes.h).
inline constexpr std::array<CallPurpose, 2> kRegistryPurposes = {CallPurpose::kRegisterSchema,
                                                                 CallPurpose::kSchemaById};
// Every column: the Table API's, then the Schema Registry's.
inline constexpr std::array<CallPurpose, kCallPurposeCount> kAllCallPurposes = [] {
  static_assert(kTableApiPurposes.size() + kRegistryPurposes.size() == kCallPurposeCount);
  std::array<CallPurpose, kCallPurposeCount> all{};
  size_t i = 0;
  for (CallPurpose p : kTableApiPurposes) all[i++] = p;
  for (CallPurpose p : kRegistryPurposes) all[i++] = p;
  return all;
}();

// The rows of the decision table: a call's final verdict, as the client hands it back. The
// Schema Registry's Status codes map onto them too (schema_registry/outcomes.h): Unavailable
// and DeadlineExceeded are kTransient, InvalidArgument kRefused, PermissionDenied kPermission,
// NotFound kNotFound, FailedPrecondition (409 incompatible) kConflict.
enum class FinalVerdict {
  kOk,
  kTransient,      // RETRYABLE: 429, 5xx, lost answers of reads; the client's budget ran out.
                   // Registry: unreachable, TLS, timeout, 5xx, 429 once its budget ran out
  kInstanceWide,   // no connection at all (refused, DNS, TLS, certificate) or credentials
                   // refused after a fresh token: about the instance, not the request
  kLostAnswer,     // AMBIGUOUS: sent, no usable answer; it may have been applied
  kRefused,        // PERMANENT: 400, 422, a 200 carrying an error, ... (registry: 422, 4xx)
  kPermission,     // 403 (registry: 401 and 403)
  kNotFound,       // 404 that is not an empty list (registry: unknown subject or id)
  kConflict,       // 409 that is not a lock (registry: the schema is incompatible)
  kProduceFailed,  // not a call: Kafka did not acknowledge a record this one produced
};
inline constexpr size_t kFinalVerdictCount = 9;

// What the lane or the poller does. The first four are ends; the others are the sink's
// policies for the verdict, each ending in one of the first four (the text says which).
enum class Action {
  kSuccess,         // done; the offset (or cursor) moves on
  kHold,            // the same record / page is tried again after a growing wait; nothing moves
  kPauseInstance,   // as kHold, and counted against the instance (health `servicenow`), never
                    // against the record: no DLQ, no offset, resumes by itself
  kRecordError,     // the record takes the error path: DLQ, then behavior.on.api.errors
  kStopTable,       // source: the table stops (health not ok) until restart
  kResendCreate,    // POST again; at most snow.retry.max.attempts lost POSTs per record, then
                    // a record error (AMBIGUOUS)
  kLookupAgain,     // correlation_lookup: look the value up, PATCH the row found or POST
  kNotFoundPolicy,  // snow.sink.not.found.behavior; a 404 after an earlier DELETE was sent is
                    // success
  kResendDelete,    // DELETE again; a later 404 is success; still lost after 5 sends: kHold
};
std::string_view ActionName(Action action);

// The final verdict of a call that did not succeed, as the decision table reads it.
FinalVerdict FinalVerdictOf(OutcomeClass klass, bool instance_unreachable);
FinalVerdict FinalVerdictOf(const CallResult& result);

// The decision: one constexpr table cell.
Action Decide(FinalVerdict verdict, CallPurpose purpose);
// The Kafka produce failure row: what the producer of a record for `purpose` does when Kafka
// does not acknowledge it (a source row: kGetPage; a sink DLQ, error or success report: the
// column of the record's write). The produce paths act on this, never on their own.
inline Action DecideProduceFailure(CallPurpose purpose) {
  return Decide(FinalVerdict::kProduceFailed, purpose);
}
Action Decide(const CallResult& result, CallPurpose purpose);

// ---- the failure catalogue (rows of the rendered matrix) ---------------------------------

// One failure of the Table API as the wire shows it to a single attempt.
struct FailureCase {
  std::string_view name = {};  // "drop after send", "429 with Retry-After", ...
  std::string_view what = {};  // one line: how it looks
  // The attempt's facts: a libcurl code (0: an HTTP answer), whether the request was sent,
  // the HTTP status, the body.
  int curl_code = 0;
  bool request_sent = true;
  int http_status = 0;
  std::string_view body = {};         // the answer's body; "" for none
  std::string_view retry_after = {};  // a Retry-After header value; "" for none
  std::string_view total_count = {};  // an X-Total-Count header value; "" for none
  // It happens to one attempt only (the client's own resend gets a good answer).
  bool once = false;
  // Not a Table API answer: a Kafka produce that is not acknowledged.
  bool kafka_produce = false;
};
std::span<const FailureCase> FailureCatalogue();

// What snowcar does when the Kafka cluster refuses one of its clients: refused SASL
// credentials, a missing ACL. Not a cell of the matrix (the refusal is the broker's, for a
// client, not an answer to one call), and each row is what the named test saw on Apache
// Kafka (tests/integration/realkafka/); docs/outcomes.md renders them.
struct KafkaRefusal {
  std::string_view name;     // "no Write on a table topic"
  std::string_view seen_as;  // the broker's error as librdkafka names it
  std::string_view outcome;  // what snowcar does, in the outcome words of the matrix
  std::string_view shows;    // where an operator sees it: health, socket, log
  std::string_view test;     // the test that shows it
};
std::span<const KafkaRefusal> KafkaRefusalCatalogue();

// The facts of one attempt of `purpose` meeting `failure` (parsed answer kept in `storage`).
AttemptFacts FactsFor(const FailureCase& failure, CallPurpose purpose, TableResponse& storage);
Method MethodOf(CallPurpose purpose);

// One cell of the rendered matrix: whether the client resends by itself first, and the
// action once its attempts are over.
struct Outcome {
  bool client_retries = false;
  Action action = Action::kSuccess;
};
Outcome OutcomeOf(const FailureCase& failure, CallPurpose purpose);

// One failure of the Schema Registry client, for the registry's matrix in docs/outcomes.md:
// what it looks like, whether the client resends it, and the final verdict the client's Status
// reads as (schema_registry/outcomes.h builds these rows from the client's own code). The
// cells are this table's.
struct RegistryMatrixRow {
  std::string name;
  std::string what;
  bool client_retries = false;
  FinalVerdict verdict = FinalVerdict::kOk;
};

// docs/outcomes.md: the Table API's matrix, the registry's (`registry_failures`), what each
// action means and the whole decision table.
std::string RenderOutcomesMarkdown(std::span<const RegistryMatrixRow> registry_failures);

}  // namespace snowcar::servicenow
