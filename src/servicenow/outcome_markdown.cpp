// SPDX-License-Identifier: Apache-2.0
// docs/outcomes.md: the decision table of outcome_table.cpp rendered with both failure
// catalogues (the Table API's and the Schema Registry's rows), and what each action means.
#include <string>
#include <vector>

#include "snowcar/servicenow/outcome_table.h"

namespace snowcar::servicenow {
namespace {

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
      "## When Kafka refuses a client\n"
      "\n"
      "Refused credentials and missing ACLs are the broker's answer to a client, not to one\n"
      "call, so they are not cells of the matrix. Each row is what its test saw on Apache Kafka\n"
      "3.9.2 with the ACLs of [production.md](production.md) less the one named\n"
      "([testbed.md](testbed.md), `scripts/kafka-server`). The rows starting `exactly-once:`\n"
      "are the failures of the exactly-once source's transactions (semantics.md):\n"
      "\n";
  AppendRow(out, {"refusal", "seen as", "what snowcar does", "where it shows", "test"});
  AppendRow(out, std::vector<std::string>(5, "---"));
  for (const KafkaRefusal& r : KafkaRefusalCatalogue()) {
    AppendRow(out, {std::string(r.name), std::string(r.seen_as), std::string(r.outcome),
                    std::string(r.shows), std::string(r.test)});
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
