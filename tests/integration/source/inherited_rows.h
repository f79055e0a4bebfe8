// SPDX-License-Identifier: Apache-2.0
// Rows of an emulated `incident` whose columns mostly come from `task`, and what every typed
// format must make of them: the source tests of each format share them, so a format that does
// not follow the super-class chain fails the same checks.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdio>
#include <string>

#include "snowcar/common/time.h"
#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::source::it {

// incident takes most of its columns from task. The emulator lists them under name=task in
// sys_dictionary and gives incident's sys_db_object row task as its super_class, as an
// instance does; every inherited column must still come out as its type.
struct InheritedRow {
  std::string id;
  int n = 0;
};

inline emulator::Fields IncidentWithTaskColumns(const InheritedRow& r, int64_t base) {
  return {{"sys_id", r.id},
          {"sys_updated_on", FormatSnowTimestamp(base + r.n)},
          {"sys_created_on", FormatSnowTimestamp(base)},
          {"opened_at", FormatSnowTimestamp(base - 3600)},
          {"closed_at", ""},
          {"short_description", "inherited " + std::to_string(r.n)},
          {"priority", std::to_string(1 + r.n % 5)},
          {"impact", "2"},
          {"urgency", "3"},
          {"state", "2"},
          {"active", r.n % 2 == 0 ? "true" : "false"},
          {"made_sla", "false"},
          {"reassignment_count", std::to_string(r.n)},
          {"escalation", "1"},
          {"severity", "3"}};  // incident's own column (a numeric choice) for comparison
}

// Both readers print a timestamp as ISO-8601 UTC with milliseconds.
inline void ExpectInheritedColumnsTyped(const boost::json::object& v, int n, int64_t base) {
  EXPECT_EQ(v.at("priority").as_int64(), 1 + n % 5) << "priority is task's integer choice";
  EXPECT_EQ(v.at("impact").as_int64(), 2);
  EXPECT_EQ(v.at("urgency").as_int64(), 3);
  EXPECT_EQ(v.at("state").as_int64(), 2);
  EXPECT_EQ(v.at("active").as_bool(), n % 2 == 0);
  EXPECT_EQ(v.at("made_sla").as_bool(), false);
  EXPECT_EQ(v.at("reassignment_count").as_int64(), n);
  EXPECT_EQ(v.at("escalation").as_int64(), 1);
  EXPECT_EQ(v.at("sys_mod_count").as_int64(), 0);
  EXPECT_EQ(v.at("opened_at").as_string(), FormatIso8601Millis((base - 3600) * 1000));
  EXPECT_EQ(v.at("sys_updated_on").as_string(), FormatIso8601Millis((base + n) * 1000));
  EXPECT_EQ(v.at("sys_created_on").as_string(), FormatIso8601Millis(base * 1000));
  EXPECT_TRUE(v.at("closed_at").is_null());
  EXPECT_EQ(v.at("short_description").as_string(), "inherited " + std::to_string(n));
  EXPECT_EQ(v.at("severity").as_int64(), 3) << "incident's own column";
}

// The sys_id of the n-th row of a test (each test its own range, so their rows never meet).
inline std::string InheritedRowId(int n) {
  char id[33];
  std::snprintf(id, sizeof(id), "%032x", n);
  return id;
}

}  // namespace snowcar::source::it
