// SPDX-License-Identifier: Apache-2.0
// The last known row of a deleted record, read from sys_audit_delete
// (snow.table.<alias>.deletes.last.row, docs/semantics.md "Deletes").
//
// An audited table keeps each deleted row in sys_audit_delete: `documentkey` is the row's
// sys_id and `payload` the row as the instance's XML export of one record. Which wrapper an
// instance writes around the row's element is not pinned down by anything recorded here
// (docs/testbed.md), so both readings are accepted:
//
//   <record_update table="incident"><incident
//   action="DELETE"><number>INC1</number>...</incident></record_update>
//   <incident><number>INC1</number>...</incident>
//
// Each child element of the row's element is a field; its text is the value (entities and
// CDATA decoded, a `display_value` attribute ignored: the value is the raw one, as the row
// stream's cursor fields are).
#pragma once

#include <boost/json/object.hpp>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::source {

// The fields of `table`'s row in `payload`, every value a string. When `fields` is not
// empty, only those fields (the table's projection). InvalidArgument, naming what is wrong,
// when the payload is not XML or holds no element named `table`.
Result<boost::json::object> ParseDeletedRowPayload(std::string_view payload, std::string_view table,
                                                   const std::vector<std::string>& fields);

}  // namespace snowcar::source
