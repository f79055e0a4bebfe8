// SPDX-License-Identifier: Apache-2.0
// What happens to a record that could not be applied: its error class, and the records the
// error path produces for it (DLQ, reporter topics). Building them is pure; producing them is
// the lane's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/kafka/record.h"
#include "snowcar/sink/commands/command.h"

namespace snowcar::sink {

enum class ErrorClass {
  kPermission,        // 403
  kNotFound,          // 404 under not_found=fail
  kConflict,          // 409 that is not a lock
  kRecordError,       // the record is invalid, or another HTTP error
  kAmbiguous,         // the request may or may not have been applied
  kRetriesExhausted,  // transient failures outlasted snow.retry.*: the lane holds the record
  // The instance itself cannot be used (no connection, TLS, credentials refused after a fresh
  // token): the lane holds the record like RETRIES_EXHAUSTED; the record is not charged.
  kInstanceUnavailable,
};

// True for the classes a lane holds (waits and retries the same record) instead of taking
// the error path: what the decision table (servicenow/outcome_table.h) calls hold and pause.
bool IsHeld(ErrorClass klass);

// "PERMISSION", "NOT_FOUND", "CONFLICT", "RECORD_ERROR", "AMBIGUOUS", "RETRIES_EXHAUSTED",
// "INSTANCE_UNAVAILABLE".
std::string_view ErrorClassName(ErrorClass klass);

struct Failure {
  ErrorClass klass = ErrorClass::kRecordError;
  std::string message;  // already masked; says what was wrong
  int http_status = 0;  // 0 when none
  int attempts = 0;
  std::string request_id;
  std::string response_excerpt;  // masked, at most 500 characters
  std::string request_body;      // only when reporter_include_request_body; masked when built
  // The instance's Retry-After on the last answer, in ms: a lane holding the record waits at
  // least this long, whatever its own backoff says.
  std::optional<int64_t> retry_after_ms;
};

// The outcome of one applied record, for the success reporter topic.
struct Applied {
  Operation operation = Operation::kCreate;  // what was finally sent (a lookup may turn
                                             // CREATE into PATCH)
  std::string table;
  std::string sys_id;  // the row written
  int http_status = 0;
  std::string request_id;
  std::string request_body;  // only when reporter_include_request_body
  // Fields removed under unknown.field.behavior=report (ApplyUnknownFieldPolicy's `reported`).
  std::vector<std::string> unknown_fields;
  // The row version written, as the instance's answer to the POST, PATCH or PUT named it
  // (unset when the answer carried no sys_mod_count: a DELETE, an ignored not-found, an
  // answer without a body). The source marks exactly this version (docs/semantics.md).
  std::optional<uint32_t> sys_mod_count;
  std::string sys_updated_on;  // as answered; empty when not
  // As answered (not reported): a PATCH or PUT that changed nothing makes no new version, and
  // its answer names the version the row already had, made by whoever this says.
  std::string sys_updated_by;
};

// The DLQ record: the original key, value, headers and timestamp, plus Kafka Connect-style
// context headers: __connect.errors.topic / .partition / .offset / .class.name (the
// ErrorClass) / .exception.message, and snowcar's snow.error.class, snow.error.message,
// snow.error.attempts, and snow.error.http.status / snow.error.request.id when known.
// Header values are masked with redact::Mask.
kafka::OutRecord BuildDlqRecord(const kafka::InRecord& original, const Failure& failure,
                                const std::string& dlq_topic);

// Reporter records (JSON values keyed by the original key, no headers):
//   {"result":"success","operation":"PATCH","table":"incident","sys_id":"<32 hex>",
//    "status":200,"request_id":"...","source":{"topic":"t","partition":0,"offset":42}}
// plus "sys_mod_count" and "sys_updated_on" (the version written) when the answer named them,
// "unknown_fields" (a list) when fields were reported and "request_body" when the lane
// passed one. Errors have "result":"error", the command's operation/table/sys_id (null when
// the record could not be decoded), "status" (null without an answer), and add
// "error_class", "attempts", "retries" (attempts - 1), "message" and "response_excerpt"
// (masked, at most 500 characters).
kafka::OutRecord BuildSuccessReport(const kafka::InRecord& original, const Applied& applied,
                                    const std::string& topic);
kafka::OutRecord BuildErrorReport(const kafka::InRecord& original,
                                  const std::optional<Command>& command, const Failure& failure,
                                  const std::string& topic);

}  // namespace snowcar::sink
