// Turning the client's final outcome of one call into the sink's error class (reference
// behaviour section 3): 403 PERMISSION, 404 NOT_FOUND, 409 CONFLICT, other refusals
// RECORD_ERROR, lost answers AMBIGUOUS, transient failures that outlasted the retry budget
// RETRIES_EXHAUSTED (the only class a lane retries).
#pragma once

#include <string_view>

#include "snowcar/servicenow/table_client.h"
#include "snowcar/sink/failure.h"

namespace snowcar::sink {

// REQUIRES: !result.ok(). `what` says what the call was for ("PATCH incident/<id>").
Failure FailureFromCall(const servicenow::CallResult& result, std::string_view what);

// A failure that did not come from a call (e.g. a lookup that matched two rows).
Failure MakeFailure(ErrorClass klass, const std::string& message);

// At most 500 characters of the instance's error message and detail, masked.
std::string ResponseExcerpt(const servicenow::CallResult& result);

}  // namespace snowcar::sink
