// SPDX-License-Identifier: Apache-2.0
#include "call_failure.h"

#include "snowcar/common/redact.h"

namespace snowcar::sink {
namespace {

constexpr size_t kExcerptChars = 500;

ErrorClass ClassOf(servicenow::OutcomeClass klass) {
  using servicenow::OutcomeClass;
  switch (klass) {
    case OutcomeClass::kPermission:
      return ErrorClass::kPermission;
    case OutcomeClass::kNotFound:
      return ErrorClass::kNotFound;
    case OutcomeClass::kConflict:
      return ErrorClass::kConflict;
    case OutcomeClass::kAmbiguous:
      return ErrorClass::kAmbiguous;
    case OutcomeClass::kOk:
    case OutcomeClass::kRetryable:
    case OutcomeClass::kPermanent:
    case OutcomeClass::kUnauthorized:
      break;
  }
  return ErrorClass::kRecordError;
}

}  // namespace

std::string ResponseExcerpt(const servicenow::CallResult& result) {
  std::string text = result.response.error_message;
  if (!result.response.error_detail.empty()) {
    if (!text.empty()) text += ": ";
    text += result.response.error_detail;
  }
  if (text.empty()) text = result.message;
  text = redact::Mask(text);
  if (text.size() > kExcerptChars) text.resize(kExcerptChars);
  return text;
}

Failure FailureFromCall(const servicenow::CallResult& result, std::string_view what,
                        servicenow::CallPurpose purpose) {
  return FailureFromCall(result, what, servicenow::Decide(result, purpose));
}

Failure FailureFromCall(const servicenow::CallResult& result, std::string_view what,
                        servicenow::Action action) {
  Failure f;
  switch (action) {
    case servicenow::Action::kHold:
      f.klass = ErrorClass::kRetriesExhausted;
      break;
    case servicenow::Action::kPauseInstance:
      f.klass = ErrorClass::kInstanceUnavailable;
      break;
    default:
      f.klass = ClassOf(result.klass);
      break;
  }
  f.http_status = result.http_status;
  f.retry_after_ms = result.response.retry_after_ms;
  f.attempts = result.attempts;
  f.request_id = result.request_id;
  f.response_excerpt = ResponseExcerpt(result);
  std::string message(what);
  message += " failed (";
  message += servicenow::OutcomeClassName(result.klass);
  if (result.http_status != 0) message += ", HTTP " + std::to_string(result.http_status);
  message += ", " + std::to_string(result.attempts) + " attempt";
  if (result.attempts != 1) message += "s";
  message += ")";
  if (!result.message.empty()) message += ": " + result.message;
  f.message = redact::Mask(message);
  return f;
}

Failure MakeFailure(ErrorClass klass, const std::string& message) {
  Failure f;
  f.klass = klass;
  f.message = redact::Mask(message);
  return f;
}

servicenow::CallPurpose CreatePurposeFor(AmbiguousCreateBehavior behavior) {
  switch (behavior) {
    case AmbiguousCreateBehavior::kRetry:
      return servicenow::CallPurpose::kCreateRetry;
    case AmbiguousCreateBehavior::kFailAmbiguous:
      return servicenow::CallPurpose::kCreateFailAmbiguous;
    case AmbiguousCreateBehavior::kCorrelationLookup:
      return servicenow::CallPurpose::kCreateCorrelation;
  }
  return servicenow::CallPurpose::kCreateFailAmbiguous;
}

}  // namespace snowcar::sink
