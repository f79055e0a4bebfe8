// SPDX-License-Identifier: Apache-2.0
// The decision table (final verdict x purpose -> action), the failure catalogue that shows
// it, and the rendering of docs/outcomes.md. See outcome_table.h.
#include "snowcar/servicenow/outcome_table.h"

#include <curl/curl.h>

#include <vector>

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
};

// The rows' names in the rendered decision table.
constexpr std::string_view kVerdictNames[kFinalVerdictCount] = {
    "OK",
    "RETRYABLE (retries ran out)",
    "no connection, TLS, or credentials refused after a fresh token",
    "AMBIGUOUS (answer lost)",
    "PERMANENT",
    "PERMISSION",
    "NOT_FOUND",
    "CONFLICT",
    "Kafka did not acknowledge a produce",
};

size_t Index(CallPurpose p) { return static_cast<size_t>(p); }
size_t Index(FinalVerdict v) { return static_cast<size_t>(v); }

// A short cell text for the matrix.
std::string_view CellText(Action action) {
  switch (action) {
    case Action::kSuccess:
      return "success";
    case Action::kHold:
      return "**hold**";
    case Action::kPauseInstance:
      return "**pause**";
    case Action::kRecordError:
      return "record error";
    case Action::kStopTable:
      return "table stops";
    case Action::kResendCreate:
      return "re-POST, then record error";
    case Action::kLookupAgain:
      return "lookup, then PATCH or POST";
    case Action::kNotFoundPolicy:
      return "not.found policy";
    case Action::kResendDelete:
      return "re-DELETE; 404 = success";
  }
  return "?";
}

std::string_view Meaning(Action action) {
  switch (action) {
    case Action::kSuccess:
      return "the call counts as applied (or, for a page, read); the offset or the cursor moves "
             "on.";
    case Action::kHold:
      return "the lane keeps the same record (the poller the same page), waits (growing from "
             "`snow.retry.initial.backoff.ms`, capped at `snow.retry.max.backoff.ms`, and never "
             "shorter than the instance's `Retry-After`) and sends it again, for as long as it "
             "takes. Nothing is dead-lettered, no offset or cursor "
             "moves. The lane shows `backing_off` with class `RETRIES_EXHAUSTED` (`PRODUCE` for a "
             "produce failure).";
    case Action::kPauseInstance:
      return "the instance itself cannot be used, so it is paused as a whole: the first call "
             "that finds out closes the instance's gate, and every lane and every source table "
             "of the instance waits at it (new work too, before it is sent) instead of "
             "retrying on its own. While it is closed the instance gets ONE probe at a time (a "
             "GET of one row of the table the failing call was for), after a wait growing from "
             "`snow.retry.initial.backoff.ms` to `snow.retry.max.backoff.ms`; the first answer "
             "(to the probe or to a call already in flight) opens it and everything resumes at "
             "once. The wait is charged to the instance, never to the record: lanes show "
             "`backing_off` with class `INSTANCE_UNAVAILABLE`, tables `backing_off` naming the "
             "cause, and `/v1/health` reports the `servicenow` component unreachable, with the "
             "reason (each waiting table is not ok under its own name too). No command is "
             "dead-lettered, no offset or cursor moves.";
    case Action::kRecordError:
      return "the record takes the error path: one DLQ record (when "
             "`errors.deadletterqueue.topic.name` is set) and one error report, acknowledged, "
             "then `behavior.on.api.errors`: `fail` stops the lane at the record (no offset "
             "moves), `log` and `ignore` store its offset and go on.";
    case Action::kStopTable:
      return "the source table stops (`failed`, health not ok, the cause named) until a "
             "restart; its cursor stays where it was.";
    case Action::kResendCreate:
      return "`retry`: the POST is sent again; at most `snow.retry.max.attempts` POSTs whose "
             "answer was lost per record (lane retries included), then a record error "
             "(`AMBIGUOUS`). A create naming its own sys_id GETs it instead and POSTs only on "
             "404.";
    case Action::kLookupAgain:
      return "`correlation_lookup`: the correlation value is looked up; one row carrying it is "
             "PATCHed (success), none means POST again, anything else is a record error "
             "(`AMBIGUOUS`).";
    case Action::kNotFoundPolicy:
      return "`snow.sink.not.found.behavior`: `fail` is a record error (`NOT_FOUND`), `ignore` "
             "is success, `create` POSTs the row under its sys_id (a DELETE reads it as "
             "`ignore`). A DELETE whose earlier send lost its answer takes a 404 as success.";
    case Action::kResendDelete:
      return "the DELETE is sent again; a 404 on a later send is success (the earlier one "
             "removed the row); after 5 lost answers in one try the lane holds the record "
             "(**hold**), still remembering that a DELETE was sent.";
  }
  return "";
}

void AppendRow(std::string& out, const std::vector<std::string>& cells) {
  out += "|";
  for (const std::string& c : cells) out += " " + c + " |";
  out += "\n";
}

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

std::string RenderOutcomesMarkdown(std::span<const RegistryMatrixRow> registry_failures) {
  std::string out;
  out +=
      "<!-- Generated by `snowcar config outcomes` (make docs-outcomes) from the decision table\n"
      "     in src/servicenow/outcome_table.cpp and the registry's failures in\n"
      "     src/schema_registry/outcomes.cpp; a test fails when this file differs. -->\n"
      "# What every failure leads to\n"
      "\n"
      "One table decides what happens when a call to the instance does not simply succeed. The\n"
      "client first classifies every attempt and resends what is safe to resend\n"
      "([servicenow-client.md](servicenow-client.md)); its final verdict and what the call was\n"
      "for then pick one cell below, and the sink's lanes ([sink.md](sink.md)) and the source's\n"
      "pollers ([source.md](source.md)) do what the cell says. Calls to the Schema Registry\n"
      "have their own columns in the same table (below the first matrix). This page is\n"
      "rendered from that table, so it is what the code does.\n"
      "\n"
      "Each row is a failure that persists (every attempt meets it) unless its description says\n"
      "otherwise; the lookup column is the GET that `correlation_lookup` sends before a create.\n"
      "\"retries, then\" means the client resends on its own first (`snow.retry.max.attempts`,\n"
      "`snow.retry.max.elapsed.ms`, `Retry-After`); without it the first answer is final.\n"
      "\n"
      "## The matrix\n"
      "\n";
  std::vector<std::string> head{"failure", "what it looks like"};
  for (CallPurpose p : kTableApiPurposes) head.emplace_back(CallPurposeName(p));
  AppendRow(out, head);
  AppendRow(out, std::vector<std::string>(head.size(), "---"));
  for (const FailureCase& failure : FailureCatalogue()) {
    std::vector<std::string> row{std::string(failure.name), std::string(failure.what)};
    for (CallPurpose p : kTableApiPurposes) {
      const Outcome o = OutcomeOf(failure, p);
      std::string cell = o.client_retries ? "retries, then " : "";
      cell += CellText(o.action);
      row.push_back(std::move(cell));
    }
    AppendRow(out, row);
  }
  out +=
      "\n"
      "## The Schema Registry's calls\n"
      "\n"
      "Typed records and framed commands need the Schema Registry: the source registers each\n"
      "record schema under its subject before it produces a row with it, and the sink looks up\n"
      "the writer schema of every framed command by its id (then decodes the command with it; a\n"
      "payload that does not decode counts as PERMANENT). The registry client turns each answer\n"
      "into an error (`include/snowcar/schema_registry/client.h`), that error names a row of\n"
      "the decision table below, and the table picks the cell. The registry is not the\n"
      "instance: none of its failures pauses the instance or stops a table.\n"
      "\n"
      "A **hold** here: the source's table backs off (doubling from\n"
      "`snow.retry.initial.backoff.ms` to `snow.retry.max.backoff.ms` for as long as the failure\n"
      "lasts), shows `backing_off` with the registry's answer in `last_error`, and reads the same\n"
      "page again afterwards; no row is produced, skipped or dropped and the cursor does not\n"
      "move. The sink's lane keeps the record (class `SCHEMA_REGISTRY_UNAVAILABLE`), waits as for\n"
      "any hold and decodes it again; nothing is dead-lettered, no offset moves. The source's\n"
      "registration resends what the client resends within `schema.registry.retry.*`; the sink\n"
      "makes one registry request per lane attempt, the lane's back-off being its retry loop.\n"
      "\n";
  std::vector<std::string> rhead{"failure", "what it looks like", "the client resends it",
                                 "final verdict"};
  for (CallPurpose p : kRegistryPurposes) rhead.emplace_back(CallPurposeName(p));
  AppendRow(out, rhead);
  AppendRow(out, std::vector<std::string>(rhead.size(), "---"));
  for (const RegistryMatrixRow& failure : registry_failures) {
    std::vector<std::string> row{failure.name, failure.what, failure.client_retries ? "yes" : "no",
                                 std::string(kVerdictNames[Index(failure.verdict)])};
    for (CallPurpose p : kRegistryPurposes) {
      row.emplace_back(CellText(Decide(failure.verdict, p)));
    }
    AppendRow(out, row);
  }
  out +=
      "\n"
      "## What each outcome means\n"
      "\n";
  for (Action a : {Action::kSuccess, Action::kHold, Action::kPauseInstance, Action::kRecordError,
                   Action::kStopTable, Action::kResendCreate, Action::kLookupAgain,
                   Action::kNotFoundPolicy, Action::kResendDelete}) {
    out += "- **" + std::string(ActionName(a)) + "**: " + std::string(Meaning(a)) + "\n";
  }
  out +=
      "\n"
      "## The decision table itself\n"
      "\n"
      "The matrix above is this table applied to each failure's final verdict:\n"
      "\n";
  std::vector<std::string> vhead{"final verdict"};
  for (CallPurpose p : kAllCallPurposes) vhead.emplace_back(CallPurposeName(p));
  AppendRow(out, vhead);
  AppendRow(out, std::vector<std::string>(vhead.size(), "---"));
  for (size_t v = 0; v < kFinalVerdictCount; ++v) {
    std::vector<std::string> row{std::string(kVerdictNames[v])};
    for (CallPurpose p : kAllCallPurposes) {
      row.emplace_back(ActionName(Decide(static_cast<FinalVerdict>(v), p)));
    }
    AppendRow(out, row);
  }
  return out;
}

}  // namespace snowcar::servicenow
