// SPDX-License-Identifier: Apache-2.0
#include "echo_marker.h"

#include <string>

#include "snowcar/config/config.h"

namespace snowcar::source {

bool CarriesModCount(const boost::json::object& row) {
  const boost::json::value* v = row.if_contains("sys_mod_count");
  if (v != nullptr && v->is_object()) v = v->as_object().if_contains("value");
  if (v == nullptr || v->is_null()) return false;
  return !v->is_string() || !v->as_string().empty();
}

EchoVerdict ApplyEcho(state::StateStore& store, EchoMode mode, std::string_view instance,
                      const TableSettings& table, bool carries_mod_count, const RowKey& key,
                      std::vector<kafka::OutRecord>& records, Status* error) {
  if (mode == EchoMode::kOff || records.empty()) return EchoVerdict::kForeign;
  auto found = store.FindOrigin(instance, table.name, key.sys_id, key.mod_count);
  if (!found.ok()) {
    if (error != nullptr) *error = found.status();
    return EchoVerdict::kForeign;
  }
  if (!found->has_value() || !carries_mod_count) return EchoVerdict::kForeign;
  if (mode == EchoMode::kSuppress) return EchoVerdict::kSuppressed;
  const state::Origin& origin = **found;
  kafka::Headers& headers = records.front().headers;
  headers.push_back({kOriginHeader, std::string("sink")});
  headers.push_back({kOriginTopicHeader, origin.topic});
  headers.push_back({kOriginPartitionHeader, std::to_string(origin.partition)});
  headers.push_back({kOriginOffsetHeader, std::to_string(origin.offset)});
  if (!origin.correlation.empty()) {
    headers.push_back({kOriginCorrelationHeader, origin.correlation});
  }
  if (!origin.request_id.empty()) headers.push_back({kOriginRequestIdHeader, origin.request_id});
  return EchoVerdict::kMarked;
}

}  // namespace snowcar::source
