// SPDX-License-Identifier: Apache-2.0
// The decision table (final verdict x purpose -> action) and the Table API's failure
// catalogue that shows it (outcome_markdown.cpp renders docs/outcomes.md). See
// outcome_table.h.
#include "snowcar/servicenow/outcome_table.h"

#include <curl/curl.h>

#include "snowcar/servicenow/table_client.h"

namespace snowcar::servicenow {
namespace {

using A = Action;

// Rows in FinalVerdict order, columns in CallPurpose order:
//   GET page, CREATE retry, CREATE fail_ambiguous, CREATE correlation_lookup, PATCH, PUT,
//   DELETE, lookup | register schema, schema by id.
// The last two columns are the Schema Registry's: the registry is not the instance, so none
// of its failures pauses the instance; the source holds the table (never dropping a row) for
// every registry failure, and the sink holds the record unless the registry said this
// record's schema is wrong.
constexpr std::array<std::array<Action, kCallPurposeCount>, kFinalVerdictCount> kDecisions = {{
    // kOk
    {A::kSuccess, A::kSuccess, A::kSuccess, A::kSuccess, A::kSuccess, A::kSuccess, A::kSuccess,
     A::kSuccess, A::kSuccess, A::kSuccess},
    // kTransient: the record (or page) is not at fault; wait and send it again.
    {A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold,
     A::kHold},
    // kInstanceWide: nobody can use the instance; no record is charged with it. The registry
    // client never reads as this row (its transport failures are kTransient); were it to, the
    // registry calls would wait, as for any failure that is not about the record.
    {A::kPauseInstance, A::kPauseInstance, A::kPauseInstance, A::kPauseInstance, A::kPauseInstance,
     A::kPauseInstance, A::kPauseInstance, A::kPauseInstance, A::kHold, A::kHold},
    // kLostAnswer: harmless to repeat a read, PATCH or PUT; a create follows its policy; a
    // DELETE is sent again and a 404 then means an earlier one removed the row. Registering a
    // schema is idempotent and a lookup by id a read: both are simply repeated.
    {A::kHold, A::kResendCreate, A::kRecordError, A::kLookupAgain, A::kHold, A::kHold,
     A::kResendDelete, A::kHold, A::kHold, A::kHold},
    // kRefused: the instance said no to this request. The registry refused a schema (422):
    // the table waits for it to be fixed; a framed command it cannot read is a bad record.
    {A::kStopTable, A::kRecordError, A::kRecordError, A::kRecordError, A::kRecordError,
     A::kRecordError, A::kRecordError, A::kRecordError, A::kHold, A::kRecordError},
    // kPermission. The registry refusing snowcar's credentials is not about any record: both
    // of its callers wait (a framed command is never dead-lettered for it).
    {A::kStopTable, A::kRecordError, A::kRecordError, A::kRecordError, A::kRecordError,
     A::kRecordError, A::kRecordError, A::kRecordError, A::kHold, A::kHold},
    // kNotFound: for a write, the row does not exist; for a read or a POST, the table. For a
    // framed command, the registry does not know its schema id.
    {A::kStopTable, A::kRecordError, A::kRecordError, A::kRecordError, A::kNotFoundPolicy,
     A::kNotFoundPolicy, A::kNotFoundPolicy, A::kRecordError, A::kHold, A::kRecordError},
    // kConflict: a read is not at fault (a lock that did not say so); a write is. A schema the
    // registry finds incompatible holds the table until the subject's level accepts it.
    {A::kHold, A::kRecordError, A::kRecordError, A::kRecordError, A::kRecordError, A::kRecordError,
     A::kRecordError, A::kRecordError, A::kHold, A::kRecordError},
    // kProduceFailed: produced again (never written to the instance again) until acknowledged.
    {A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold, A::kHold,
     A::kHold},
}};

constexpr std::string_view kErrorBody404 =
    R"({"error":{"message":"No Record found","detail":"Record doesn't exist or ACL restricts the record retrieval"},"status":"failure"})";

// The rows of the rendered matrix: the failures of the error model, one each.
constexpr FailureCase kCatalogue[] = {
    {.name = "drop before send",
     .what = "the connection closes before the request was written",
     .curl_code = CURLE_SEND_ERROR,
     .request_sent = false},
    {.name = "drop after send",
     .what = "the request was written, the connection closes without an answer",
     .curl_code = CURLE_GOT_NOTHING},
    {.name = "timeout after apply",
     .what = "the instance applied the request; its answer did not come in time",
     .curl_code = CURLE_OPERATION_TIMEDOUT},
    {.name = "400",
     .what = "the instance refuses the request",
     .http_status = 400,
     .body =
         R"({"error":{"message":"Invalid request","detail":"bad field value"},"status":"failure"})"},
    {.name = "401 once",
     .what = "the token expired; the fresh one is accepted",
     .http_status = 401,
     .body =
         R"({"error":{"message":"User Not Authenticated","detail":"Required to provide Auth information"},"status":"failure"})",
     .once = true},
    {.name = "401 after refresh",
     .what = "the credentials are refused with a fresh token too",
     .http_status = 401,
     .body =
         R"({"error":{"message":"User Not Authenticated","detail":"Required to provide Auth information"},"status":"failure"})"},
    {.name = "403",
     .what = "the integration user's ACLs forbid it",
     .http_status = 403,
     .body =
         R"({"error":{"message":"Operation Failed","detail":"ACL Exception Update Failed due to security constraints"},"status":"failure"})"},
    {.name = "404",
     .what = "\"No Record found\": a list without rows, or a row that does not exist",
     .http_status = 404,
     .body = kErrorBody404,
     .total_count = "0"},
    {.name = "409",
     .what = "a conflict that is not a lock (a unique key)",
     .http_status = 409,
     .body =
         R"({"error":{"message":"Conflict","detail":"unique key violated"},"status":"failure"})"},
    {.name = "429 with Retry-After",
     .what = "throttled; the client waits what Retry-After asks",
     .http_status = 429,
     .body = R"({"error":{"message":"Too many requests"},"status":"failure"})",
     .retry_after = "30"},
    {.name = "429 without Retry-After",
     .what = "throttled; the client waits its own backoff",
     .http_status = 429,
     .body = R"({"error":{"message":"Too many requests"},"status":"failure"})"},
    {.name = "500", .what = "internal error", .http_status = 500},
    {.name = "502",
     .what = "a gateway answered; the instance behind it may have run the request",
     .http_status = 502},
    {.name = "503", .what = "unavailable (maintenance, node restart)", .http_status = 503},
    {.name = "504",
     .what = "a gateway timed out; the instance behind it may have run the request",
     .http_status = 504},
    {.name = "malformed 2xx",
     .what = "a 200 whose body is cut short or not JSON",
     .http_status = 200,
     .body = R"({"result":[{"sys_id":"0123456789abcdef0123456789abcdef")"},
    {.name = "200 with an error body",
     .what = "a 200 carrying {\"error\":...} and no result",
     .http_status = 200,
     .body =
         R"({"error":{"message":"Operation against file was aborted by Business Rule"},"status":"failure"})"},
    {.name = "202",
     .what = "accepted (queued behind other requests of the session), not confirmed as run",
     .http_status = 202},
    {.name = "TLS failure",
     .what = "the instance's certificate does not verify",
     .curl_code = CURLE_PEER_FAILED_VERIFICATION,
     .request_sent = false},
    {.name = "connection refused",
     .what = "nothing listens at snow.url",
     .curl_code = CURLE_COULDNT_CONNECT,
     .request_sent = false},
    {.name = "DNS failure",
     .what = "the instance's name does not resolve",
     .curl_code = CURLE_COULDNT_RESOLVE_HOST,
     .request_sent = false},
    {.name = "Kafka produce failure",
     .what = "a source row, or a sink DLQ / reporter record, is not acknowledged by Kafka",
     .kafka_produce = true},
    {.name = "Kafka ACL refuses a produce",
     .what = "TOPIC_AUTHORIZATION_FAILED: the principal has no Write on the table topic, the "
             "DLQ or a reporter topic; produced again until an ACL allows it",
     .kafka_produce = true},
};

constexpr KafkaRefusal kKafkaRefusals[] = {
    {.name = "SASL credentials refused",
     .seen_as = "`_AUTHENTICATION` (\"SASL authentication error: ... invalid credentials\")",
     .outcome = "every client retries on its own; nothing is produced or applied, no cursor or "
                "offset moves; the process stays up (no crash loop)",
     .shows = "`/v1/health` degraded: `kafka` not ok, `sink` names the SASL error; `/v1/ready` "
              "503; log `kafka.client_error`",
     .test = "`SecuredSidecarTest.AWrongPasswordDegradesHealthNamesTheCauseAndDoesNotCrashLoop`"},
    {.name = "broker certificate not signed by the CA",
     .seen_as = "`_SSL` (\"SSL handshake failed: ... certificate verify failed\")",
     .outcome = "as refused credentials: every client retries, nothing moves, the process "
                "stays up",
     .shows = "`/v1/health` degraded: `kafka` not ok, `sink` names the certificate error; "
              "`/v1/ready` 503; log `kafka.client_error`",
     .test = "`SecuredSidecarTest.AnUnknownCaDegradesHealthNamesTheCauseAndDoesNotCrashLoop`"},
    {.name = "broker certificate expired",
     .seen_as = "`_SSL`, the same text as an unknown CA: librdkafka 2.0.2 does not say the "
                "certificate expired (check its dates with `openssl s_client`)",
     .outcome = "as refused credentials: every client retries, nothing moves, the process "
                "stays up; rows and commands wait and go through once the broker's "
                "certificate is valid",
     .shows = "`/v1/health` degraded: `kafka` not ok, `sink` names the certificate error; "
              "`/v1/ready` 503; log `kafka.client_error`",
     .test = "`ExpiredCertSidecarTest.AnExpiredBrokerCertificateDegradesHealthAndLosesNothing`"},
    {.name = "no Write on a table topic",
     .seen_as = "`TOPIC_AUTHORIZATION_FAILED` on produce",
     .outcome = "**hold**: the table backs off and produces the same rows again; none is lost "
                "once the ACL exists; other tables and the sink go on",
     .shows = "`source.<alias>` not ok naming the error; log `source.produce_failed`",
     .test = "`SecuredSidecarTest.WithoutWriteOnTheTableTopicTheSourceHoldsAndLosesNothing`"},
    {.name = "topic.creation on, and no Create for a missing table topic",
     .seen_as = "`TOPIC_AUTHORIZATION_FAILED` on CreateTopics (a create policy's refusal is "
                "`POLICY_VIOLATION`, too many replicas `INVALID_REPLICATION_FACTOR`)",
     .outcome = "**hold**: the table reads nothing and backs off, then looks the topic up and "
                "asks again; once the topic can be created (or someone created it) its rows "
                "are read from the cursor, none lost; other tables and the sink go on",
     .shows = "`source.<alias>` not ok naming the topic, the error and the partitions, "
              "replication factor and configs it asked for; the table `backing_off` on "
              "`/v1/source/tables`; log `source.topic_create_failed`",
     .test = "`TopicCreationRealKafkaTest.WithoutCreateTheTableHoldsUntilGrantedAndLosesNothing`"},
    {.name = "no Write on the DLQ topic",
     .seen_as = "`TOPIC_AUTHORIZATION_FAILED` on the DLQ record's produce",
     .outcome = "**hold**: the failed command waits in its lane (no offset moves) and its DLQ "
                "record is produced once the ACL exists",
     .shows = "the lane `backing_off` with class `PRODUCE` on `/v1/sink/partitions`; the `sink` "
              "health component stays ok",
     .test = "`SecuredSidecarTest.WithoutWriteOnTheDlqTheFailedCommandIsHeldNotLost`"},
    {.name = "no Read on the sink's group",
     .seen_as = "`GROUP_AUTHORIZATION_FAILED` (JoinGroup)",
     .outcome = "no partition is assigned, nothing is applied; the consumer keeps joining and "
                "starts at the committed offsets once the ACL exists",
     .shows = "`sink` not ok naming the error (ok again at the first assignment); log "
              "`kafka.consumer.error`",
     .test = "`SecuredSidecarTest.WithoutReadOnTheGroupTheSinkAppliesNothingUntilGranted`"},
    // Exactly-once source (src/source/exactly_once/): a transaction's failures.
    {.name = "exactly-once: a record of the page's transaction fails (abortable)",
     .seen_as = "the record's delivery error (e.g. `MSG_SIZE_TOO_LARGE`); a commit would be "
                "refused as abortable",
     .outcome = "**hold**: the transaction is aborted (read_committed readers see nothing of "
                "the page), the dedup window is reloaded from the store, and the table backs "
                "off and reads the page again from its committed cursor",
     .shows = "`source.<alias>` not ok naming the error; log `source.transaction_aborted`",
     .test = "`ExactlyOnceRealKafkaTest.AnAbortedTransactionHidesItsPageUntilItCanBeWritten`"},
    {.name = "exactly-once: the transactional id is fenced",
     .seen_as = "`PRODUCER_FENCED` / `_FENCED` (another process's `init_transactions` with the "
                "table's transactional id)",
     .outcome = "**stop table**: its open transaction is aborted by the new owner, and this "
                "process never produces for the table again (a new producer would fence the "
                "new owner); other tables go on",
     .shows = "`source.<alias>` failed, naming the fencing; log `source.table_failed`",
     .test = "`ExactlyOnceRealKafkaTest.AFrozenReplicaIsFencedWhenAnotherTakesTheTable`"},
    {.name = "exactly-once: a transaction outlives `kafka.transaction.timeout.ms`",
     .seen_as = "`_FENCED` (\"fenced by a newer instance\") at the next step after the "
                "coordinator aborted the transaction and bumped the id's epoch: the process "
                "was frozen (SIGSTOP, a paused VM) or a commit took longer than the timeout",
     .outcome = "**stop table**, as for fencing: the broker aborted the transaction "
                "(read_committed readers see nothing of it) and no error tells a timeout from a "
                "takeover, so this process never produces for the table again; a restart "
                "takes the table up from its committed state. `config check` refuses "
                "`transaction.boundary.interval.ms` above half the timeout",
     .shows = "`source.<alias>` failed, naming how long the transaction was open and the "
              "timeout; log `source.table_failed`",
     .test =
         "`ExactlyOnceRealKafkaTest.ATransactionFrozenPastItsTimeoutStopsTheTableUntilARestart`"},
    {.name = "exactly-once: broker unavailable or the commit times out",
     .seen_as = "`_TIMED_OUT`, `COORDINATOR_NOT_AVAILABLE`, `NOT_COORDINATOR` (retriable), "
                "or an abortable error after a broker restart",
     .outcome = "**hold**: a commit waits up to 30 s and is tried once more, then the "
                "transaction is aborted (a producer that cannot abort is replaced; its "
                "`init_transactions` aborts on the broker) and the page is read again after a "
                "back-off; across the test's controlled restart the commits waited and none "
                "aborted",
     .shows = "`source.<alias>` not ok while it lasts; log `source.transaction_aborted` on an "
              "abort",
     .test = "`ExactlyOnceRealKafkaTest.ABrokerRestartMidStreamLeavesNoDuplicateAndNoLoss`"},
};

size_t Index(CallPurpose p) { return static_cast<size_t>(p); }
size_t Index(FinalVerdict v) { return static_cast<size_t>(v); }

}  // namespace

std::string_view CallPurposeName(CallPurpose purpose) {
  switch (purpose) {
    case CallPurpose::kGetPage:
      return "GET page (source)";
    case CallPurpose::kCreateRetry:
      return "CREATE `retry`";
    case CallPurpose::kCreateFailAmbiguous:
      return "CREATE `fail_ambiguous`";
    case CallPurpose::kCreateCorrelation:
      return "CREATE `correlation_lookup`";
    case CallPurpose::kPatch:
      return "PATCH";
    case CallPurpose::kPut:
      return "PUT";
    case CallPurpose::kDelete:
      return "DELETE";
    case CallPurpose::kLookup:
      return "correlation lookup";
    case CallPurpose::kRegisterSchema:
      return "register schema (source)";
    case CallPurpose::kSchemaById:
      return "schema by id (sink)";
  }
  return "?";
}

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kSuccess:
      return "success";
    case Action::kHold:
      return "hold";
    case Action::kPauseInstance:
      return "pause";
    case Action::kRecordError:
      return "record error";
    case Action::kStopTable:
      return "table stops";
    case Action::kResendCreate:
      return "re-POST";
    case Action::kLookupAgain:
      return "lookup again";
    case Action::kNotFoundPolicy:
      return "not.found policy";
    case Action::kResendDelete:
      return "re-DELETE";
  }
  return "?";
}

FinalVerdict FinalVerdictOf(OutcomeClass klass, bool instance_unreachable) {
  switch (klass) {
    case OutcomeClass::kOk:
      return FinalVerdict::kOk;
    case OutcomeClass::kRetryable:
      return instance_unreachable ? FinalVerdict::kInstanceWide : FinalVerdict::kTransient;
    case OutcomeClass::kPermanent:
      return instance_unreachable ? FinalVerdict::kInstanceWide : FinalVerdict::kRefused;
    case OutcomeClass::kAmbiguous:
      return FinalVerdict::kLostAnswer;
    case OutcomeClass::kUnauthorized:
      // Refused after a fresh token: every request of every lane and table would be.
      return FinalVerdict::kInstanceWide;
    case OutcomeClass::kNotFound:
      return FinalVerdict::kNotFound;
    case OutcomeClass::kPermission:
      return FinalVerdict::kPermission;
    case OutcomeClass::kConflict:
      return FinalVerdict::kConflict;
  }
  return FinalVerdict::kRefused;
}

FinalVerdict FinalVerdictOf(const CallResult& result) {
  return FinalVerdictOf(result.klass, result.instance_unreachable);
}

Action Decide(FinalVerdict verdict, CallPurpose purpose) {
  return kDecisions[Index(verdict)][Index(purpose)];
}

Action Decide(const CallResult& result, CallPurpose purpose) {
  return Decide(FinalVerdictOf(result), purpose);
}

std::span<const FailureCase> FailureCatalogue() { return kCatalogue; }

std::span<const KafkaRefusal> KafkaRefusalCatalogue() { return kKafkaRefusals; }

Method MethodOf(CallPurpose purpose) {
  switch (purpose) {
    case CallPurpose::kGetPage:
    case CallPurpose::kLookup:
    case CallPurpose::kSchemaById:
      return Method::kGet;
    case CallPurpose::kCreateRetry:
    case CallPurpose::kCreateFailAmbiguous:
    case CallPurpose::kCreateCorrelation:
    case CallPurpose::kRegisterSchema:
      return Method::kPost;
    case CallPurpose::kPatch:
      return Method::kPatch;
    case CallPurpose::kPut:
      return Method::kPut;
    case CallPurpose::kDelete:
      return Method::kDelete;
  }
  return Method::kGet;
}

AttemptFacts FactsFor(const FailureCase& failure, CallPurpose purpose, TableResponse& storage) {
  AttemptFacts f;
  f.method = MethodOf(purpose);
  f.list_request = purpose == CallPurpose::kGetPage || purpose == CallPurpose::kLookup;
  f.curl_code = failure.curl_code;
  f.request_sent = failure.request_sent;
  f.http_status = failure.http_status;
  if (failure.http_status != 0) {
    InstanceResponse response;
    response.status = failure.http_status;
    response.body = std::string(failure.body);
    if (!failure.body.empty()) response.headers.emplace_back("Content-Type", "application/json");
    if (!failure.retry_after.empty()) {
      response.headers.emplace_back("Retry-After", std::string(failure.retry_after));
    }
    if (!failure.total_count.empty()) {
      response.headers.emplace_back("X-Total-Count", std::string(failure.total_count));
    }
    storage = ParseTableResponse(response, 0);
    f.parsed = &storage;
  }
  return f;
}

Outcome OutcomeOf(const FailureCase& failure, CallPurpose purpose) {
  Outcome out;
  if (failure.kafka_produce) {
    out.action = Decide(FinalVerdict::kProduceFailed, purpose);
    return out;
  }
  TableResponse parsed;
  const Verdict v = Classify(FactsFor(failure, purpose, parsed));
  out.client_retries = v.retry || v.reauthenticate;
  if (failure.once && out.client_retries) {
    out.action = Action::kSuccess;  // the client's own resend is answered
    return out;
  }
  const FinalVerdict verdict =
      v.empty_list ? FinalVerdict::kOk : FinalVerdictOf(v.klass, v.instance_unreachable);
  out.action = Decide(verdict, purpose);
  return out;
}

}  // namespace snowcar::servicenow
