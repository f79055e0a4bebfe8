// SPDX-License-Identifier: Apache-2.0
// Rows as the Table API's JSON, and request bodies into fields.
//
// Rendering appends to a std::string with a hand-written writer (no JSON DOM per row): the
// list path renders hundreds of thousands of rows a second. Shapes follow real responses:
//  - display_value=false: every value a JSON string ("" when empty); a reference is
//    {"link":"<link_base><table>/<id>","value":"<id>"}, "" when empty, the bare id with
//    exclude_reference_link.
//  - display_value=true: display values. References {"display_value":..,"link":..} (the bare
//    display string with exclude_reference_link); choices their label, JSON null when the
//    choice is empty; integers with thousands separators ("102,197"); date-times shifted
//    into the user's time zone; sys_class_name the table label.
//  - display_value=all: every field {"display_value":..,"value":..}, plus "link" between
//    them for references unless exclude_reference_link.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/testbed/emulator/table_store.h"
#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {

enum class DisplayValue { kFalse, kTrue, kAll };

// sysparm_display_value: "false" | "true" | "all" (any case); "" means false.
Result<DisplayValue> ParseDisplayValue(std::string_view text);

struct RenderOptions {
  DisplayValue display_value = DisplayValue::kFalse;
  bool exclude_reference_link = false;  // sysparm_exclude_reference_link
  // Links are link_base + <table> + "/" + <sys_id>; an instance echoes the request's API
  // version, e.g. "https://host/api/now/v2/table/".
  std::string link_base = "http://localhost/api/now/table/";
  // The integration user's time zone for display date-times (seconds east of UTC).
  int64_t display_utc_offset_seconds = 0;
};

// Appends `text` as a JSON string literal (quotes included), escaping as RFC 8259 requires.
void AppendJsonString(std::string_view text, std::string* out);

// Appends one row as a JSON object holding the fields at `field_indices`, in that order.
// `lookup` resolves reference display values; nullptr renders them as "".
void AppendRowJson(const TableSchema& schema, const Row& row,
                   const std::vector<size_t>& field_indices, const RenderOptions& options,
                   const DisplayLookup* lookup, std::string* out);

// {"result":[row,...]} for a list page.
void AppendListBody(const ListPage& page, const RenderOptions& options, const DisplayLookup* lookup,
                    std::string* out);
std::string RenderListBody(const ListPage& page, const RenderOptions& options,
                           const DisplayLookup* lookup);

// {"result":{...}} for one record (GET by sys_id, POST, PATCH, PUT). Empty field_indices =
// every field.
std::string RenderRecordBody(const TableSchema& schema, const Row& row,
                             const std::vector<size_t>& field_indices, const RenderOptions& options,
                             const DisplayLookup* lookup);

// A POST/PATCH/PUT body (a JSON object) as fields, stored as an instance stores them:
// strings as given, numbers as their text, booleans "true"/"false", null as "". Nested
// objects/arrays are an error naming the field; a body that is not a JSON object, or not
// JSON, is InvalidArgument saying what was received.
Result<Fields> ParseJsonFields(std::string_view body);

}  // namespace snowcar::emulator
