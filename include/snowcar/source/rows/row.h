// SPDX-License-Identifier: Apache-2.0
// Reading the cursor fields out of one row of a page, and checking the row against the
// cursor. Pure functions over Boost.JSON values.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source {

// The position and version of one row. `sys_id` views into the row it was read from.
struct RowKey {
  int64_t ts = 0;  // seconds since the epoch, UTC
  std::string_view sys_id;
  uint32_t mod_count = 0;  // 0 when the row has no sys_mod_count
};

// Reads the id, timestamp and sys_mod_count fields (raw values, also under
// display_value=true/all where a field is {"display_value","value"}). A missing or blank
// sys_id, or a missing or unparsable timestamp, is kInvalidArgument naming the table, the
// sys_id (when known), the field and the value, and saying how to skip such rows
// (snow.source.bad.row.behavior=skip). The same error for a sys_id that is not a string or
// holds '^' or a line break (it would change the meaning of the next keyset query), and for
// a sys_mod_count that is neither absent, "" nor a whole number (string or JSON number).
Result<RowKey> ReadRowKey(const boost::json::object& row, const TableSettings& table);

// True when (key.ts, key.sys_id) sorts strictly after `position`. (T, "") sorts before every
// row of second T.
bool IsAfter(const RowKey& key, int64_t position_ts, std::string_view position_sys_id);

}  // namespace snowcar::source
