// SPDX-License-Identifier: Apache-2.0
// What one answer of the registry (or its absence) means to the client: the JSON of a good
// answer, or the error client.h lists and whether another attempt may help. The client's
// retry loop (client.cpp) and the registry's failure catalogue (outcomes.cpp, which renders
// docs/outcomes.md) both read answers through this one function.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string_view>

#include "http_call.h"
#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

struct AnswerReading {
  std::optional<boost::json::value> json;  // a 2xx answer whose body is JSON
  Status failure;                          // otherwise: the error client.h lists
  bool retry = false;                      // the failure may pass: try again (5xx, 429, 408,
                                           // no answer, a 2xx that is not JSON)
};

// `where` ("schema registry <url>: POST <path>") and `what` (the subject or "schema id N")
// name the call in messages.
AnswerReading ReadAnswer(const HttpAnswer& answer, std::string_view where, std::string_view what);

}  // namespace snowcar::schema_registry
