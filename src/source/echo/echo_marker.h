// SPDX-License-Identifier: Apache-2.0
// The source's side of the link between the two directions: a row version that the sink of
// the same process wrote (the state store's origin family, keyed exactly by table, sys_id and
// sys_mod_count) is marked with headers naming the command that wrote it, or kept out of the
// topic (snow.source.echo; docs/semantics.md, "The sink's own versions").
//
// A version is the sink's only when the store holds exactly that version: a later change by
// anyone else has a higher sys_mod_count and is never marked, and a row read without a
// sys_mod_count is never marked either (the source always asks for the field: .fields gets
// it appended, and without .fields the instance sends every field).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <string_view>
#include <vector>

#include "snowcar/kafka/record.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::config {
class Config;
}

namespace snowcar::source {

inline constexpr const char* kOriginHeader = "snow.origin";  // "sink"
inline constexpr const char* kOriginTopicHeader = "snow.origin.topic";
inline constexpr const char* kOriginPartitionHeader = "snow.origin.partition";
inline constexpr const char* kOriginOffsetHeader = "snow.origin.offset";
inline constexpr const char* kOriginCorrelationHeader = "snow.origin.correlation";
inline constexpr const char* kOriginRequestIdHeader = "snow.origin.request.id";

enum class EchoVerdict {
  kForeign,     // not written by the sink: produce as it is
  kMarked,      // the sink's: the origin headers were added to the row's record
  kSuppressed,  // the sink's, under suppress: produce nothing
};

// True when the row really carries a sys_mod_count: ReadRowKey reads a missing or blank one
// as 0, which must not match the sink's version 0 of a create.
bool CarriesModCount(const boost::json::object& row);

// Looks the version up and marks `records` (the row's UPSERT record comes first). A failed
// lookup is reported in `error` and answers kForeign: the version is emitted unmarked, never
// marked wrongly and never lost. `carries_mod_count`: CarriesModCount of the row.
EchoVerdict ApplyEcho(state::StateStore& store, EchoMode mode, std::string_view instance,
                      const TableSettings& table, bool carries_mod_count, const RowKey& key,
                      std::vector<kafka::OutRecord>& records, Status* error);

}  // namespace snowcar::source
