// SPDX-License-Identifier: Apache-2.0
// What the tests of deletion capture share: the sys_id of the deleted row and of its audit
// entry, the instant they are stamped at, and the incident table's settings each test starts
// from (its deletion settings are the test's own).
#pragma once

#include <cstdint>
#include <string>

#include "snowcar/source/source_settings.h"

namespace snowcar::source::testing {

inline const std::string kRowId = "0123456789abcdef0123456789abcdef";
inline const std::string kAuditId = "fedcba9876543210fedcba9876543210";
inline constexpr int64_t kT = 1772366400;  // 2026-03-01 12:00:00

// Table incident, alias inc, written to servicenow.incident.
inline TableSettings IncidentRows() {
  TableSettings t;
  t.alias = "inc";
  t.name = "incident";
  t.topic = "servicenow.incident";
  return t;
}

}  // namespace snowcar::source::testing
