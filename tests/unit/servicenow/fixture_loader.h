// SPDX-License-Identifier: Apache-2.0
// Reads the recorded ServiceNow answers in shared/fixtures/servicenow into InstanceResponses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "snowcar/servicenow/instance_http.h"

namespace snowcar::servicenow::testing {

struct Fixture {
  std::string file;  // e.g. "15-200-transaction-cancelled-malformed.json"
  Method method = Method::kGet;
  std::string url;
  std::optional<int> status;  // null in a few files: the source did not record it
  InstanceResponse response;  // status 0 when not recorded; body "" when not recorded
};

std::string FixtureDir();
// Every *.json file of the directory, sorted by name.
std::vector<Fixture> LoadAllFixtures();
Fixture LoadFixture(const std::string& file);

}  // namespace snowcar::servicenow::testing
