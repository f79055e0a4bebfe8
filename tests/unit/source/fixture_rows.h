// SPDX-License-Identifier: Apache-2.0
// Rows out of the recorded ServiceNow answers in tests/fixtures/servicenow/.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/time.h"

namespace snowcar::source::testing {

// The rows of `file`'s response body: its "result" array, or its single "result" object.
inline std::vector<boost::json::object> FixtureRows(const std::string& file) {
  std::ifstream in(std::string(SNOWCAR_FIXTURES_DIR) + "/servicenow/" + file);
  std::ostringstream text;
  text << in.rdbuf();
  const boost::json::value doc = boost::json::parse(text.str());
  const boost::json::value& result = doc.at("response").at("body").at("result");
  std::vector<boost::json::object> rows;
  if (result.is_array()) {
    for (const auto& row : result.get_array()) rows.push_back(row.as_object());
  } else {
    rows.push_back(result.as_object());
  }
  return rows;
}

// A ServiceNow timestamp ("2026-01-01 00:00:00") as epoch seconds; the text must be valid.
inline int64_t Ts(std::string_view text) { return ParseSnowTimestamp(text).value(); }

}  // namespace snowcar::source::testing
