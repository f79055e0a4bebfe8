// SPDX-License-Identifier: Apache-2.0
// Test and demo data for the emulator: generated rows and JSON seed files.
//
// Generated rows are deterministic for a seed, and shaped like a real instance's: numbered
// incidents with references to users and groups that exist, choices with labels, text of
// varied length (some with quotes, newlines and non-ASCII), and timestamps that cluster so
// many rows share one second, inserted out of timestamp order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/common/time.h"
#include "snowcar/testbed/emulator/table_store.h"
#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {

struct GenOptions {
  uint64_t seed = 1;
  size_t rows = 1000;
  // sys_updated_on spreads over [now - span_seconds, now] (the clock's now).
  int64_t span_seconds = int64_t{7} * 24 * 3600;
  // Average rows per distinct second; > 1 makes many rows share a second.
  double rows_per_second = 4.0;
  // Rows of the referenced tables (sys_user, sys_user_group, cmdb_ci) Populate creates first.
  size_t users = 50;
  size_t groups = 8;
  size_t cis = 20;
};

// Ids of existing rows that generated references point to; empty lists give empty references.
struct GenReferences {
  std::vector<std::string> users;
  std::vector<std::string> groups;
  std::vector<std::string> cis;
};

// `options.rows` rows for `schema`, including sys_id and system fields, ready for
// TableStore::Load. Fields the generator has no rule for get realistic text or stay empty.
std::vector<Fields> GenerateRows(const TableSchema& schema, const GenOptions& options,
                                 const Clock& clock, const GenReferences& refs);

// Fills `table` with generated rows, creating and filling sys_user, sys_user_group and cmdb_ci
// first (unless `table` is one of them or they already hold rows) so references resolve.
Status Populate(TableStore& store, std::string_view table, const GenOptions& options);

// Loads a seed document {"<table>":[{"field":"value",...},...],...} into `store`. Values
// follow the request-body rules (numbers/booleans as text, null as ""). `source_name` names
// the input in errors, which say where the problem is (table, row index, or JSON line:column).
Status LoadSeedJson(TableStore& store, std::string_view json, std::string_view source_name);
// Reads `path` and loads it with LoadSeedJson; a missing file is NotFound naming the path.
Status LoadSeedFile(TableStore& store, const std::string& path);

}  // namespace snowcar::emulator
