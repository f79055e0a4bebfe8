// SPDX-License-Identifier: Apache-2.0
// Turning the client's final outcome of one call into the sink's error class. Whether the
// record is held or fails is the decision table's (servicenow/outcome_table.h): hold is
// RETRIES_EXHAUSTED, pause is INSTANCE_UNAVAILABLE (the two a lane retries), and a record
// error is named after the answer (reference behaviour section 3): 403 PERMISSION,
// 404 NOT_FOUND, 409 CONFLICT, lost answers AMBIGUOUS, other refusals RECORD_ERROR.
#pragma once

#include <string_view>

#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/servicenow/table_client.h"
#include "snowcar/sink/commands/failure.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink {

// REQUIRES: !result.ok(). `what` says what the call was for ("PATCH incident/<id>");
// `action` is the decision table's verdict on it (hold, pause or record error; a policy
// action reaches here only once the policy ran out, and reads as a record error).
Failure FailureFromCall(const servicenow::CallResult& result, std::string_view what,
                        servicenow::Action action);
// As above, with the table consulted for `purpose`.
Failure FailureFromCall(const servicenow::CallResult& result, std::string_view what,
                        servicenow::CallPurpose purpose);

// The decision table's column for a POST under `behavior`
// (snow.sink.create.ambiguous.behavior).
servicenow::CallPurpose CreatePurposeFor(AmbiguousCreateBehavior behavior);

// A failure that did not come from a call (e.g. a lookup that matched two rows).
Failure MakeFailure(ErrorClass klass, const std::string& message);

// At most 500 characters of the instance's error message and detail, masked.
std::string ResponseExcerpt(const servicenow::CallResult& result);

}  // namespace snowcar::sink
