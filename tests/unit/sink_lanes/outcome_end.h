// SPDX-License-Identifier: Apache-2.0
// Where a record ends when a failure persists, in the words of the outcome matrix
// (docs/outcomes.md): shared by the lane-level matrix (outcome_matrix_test.cpp) and the one
// over the wire against the emulator (tests/integration/sink/fault_matrix_test.cpp), so both
// read the decision table the same way.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sinktest {

enum class End { kSuccess, kHold, kPause, kRecordError };

inline std::string_view EndName(End e) {
  switch (e) {
    case End::kSuccess:
      return "success";
    case End::kHold:
      return "hold";
    case End::kPause:
      return "pause";
    case End::kRecordError:
      return "record error";
  }
  return "?";
}

// Where `action` ends under the default not.found.behavior=fail. A lookup after a lost POST
// finds the row when that POST was applied (`post_applied`: success); when it was not, it POSTs
// again until snow.retry.max.attempts POSTs are lost (a record error, AMBIGUOUS).
inline End EndOf(servicenow::Action action, bool post_applied = true) {
  switch (action) {
    case servicenow::Action::kSuccess:
      return End::kSuccess;
    case servicenow::Action::kLookupAgain:
      return post_applied ? End::kSuccess : End::kRecordError;
    case servicenow::Action::kHold:
    case servicenow::Action::kResendDelete:
      return End::kHold;
    case servicenow::Action::kPauseInstance:
      return End::kPause;
    case servicenow::Action::kRecordError:
    case servicenow::Action::kResendCreate:
    case servicenow::Action::kNotFoundPolicy:
    case servicenow::Action::kStopTable:
      return End::kRecordError;
  }
  return End::kRecordError;
}

// Shapes a cell of column `purpose`: the create policy or update method it tests in `s`, no
// key (`key`) for a create, no value for a DELETE, and `correlation_id` in the value of a
// correlation lookup.
inline void ShapeCell(servicenow::CallPurpose purpose, const std::string& correlation_id,
                      sink::SinkSettings& s, std::optional<std::string>& key,
                      std::optional<boost::json::object>& value) {
  using servicenow::CallPurpose;
  switch (purpose) {
    case CallPurpose::kCreateRetry:
      s.ambiguous_create = sink::AmbiguousCreateBehavior::kRetry;
      key.reset();
      break;
    case CallPurpose::kCreateFailAmbiguous:
      s.ambiguous_create = sink::AmbiguousCreateBehavior::kFailAmbiguous;
      key.reset();
      break;
    case CallPurpose::kCreateCorrelation:
    case CallPurpose::kLookup:
      s.ambiguous_create = sink::AmbiguousCreateBehavior::kCorrelationLookup;
      s.correlation_field = "correlation_id";
      key.reset();
      (*value)["correlation_id"] = correlation_id;
      break;
    case CallPurpose::kPut:
      s.update_method = sink::Operation::kPut;
      break;
    case CallPurpose::kDelete:
      value.reset();
      break;
    case CallPurpose::kPatch:
    case CallPurpose::kGetPage:
    case CallPurpose::kRegisterSchema:  // the registry's columns: registry_outcomes_test.cpp
    case CallPurpose::kSchemaById:
      break;
  }
}

}  // namespace snowcar::sinktest
