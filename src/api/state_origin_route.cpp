// SPDX-License-Identifier: Apache-2.0
// GET /v1/state/origin/{table}/{sys_id}: the row versions the sink wrote to one row, and the
// command record each came from (docs/socket-api.md).
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "snowcar/api/routes.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"

namespace snowcar::api {
namespace {

bool IsSnowTableName(std::string_view name) {
  if (name.empty() || name.size() > 80) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

boost::json::value TextOrNull(const std::string& s) {
  return s.empty() ? boost::json::value(nullptr) : boost::json::value(s);
}

}  // namespace

Status RegisterOriginRoute(ApiRouter& router, state::StateStore& store) {
  return router.Add(Route{
      "GET", "/v1/state/origin/{table}/{sys_id}",
      "the versions of one row the sink wrote, and the command record of each", false,
      [&store](const ApiRequest& request) {
        const std::string& table = request.Capture("table");
        const std::string& sys_id = request.Capture("sys_id");
        if (!IsSnowTableName(table)) {
          return ApiResponse::Error(400,
                                    "invalid table name '" + table.substr(0, 200) +
                                        "': expected the ServiceNow table name (^[a-z0-9_]+$)",
                                    request.path);
        }
        auto origins = store.OriginsFor(table, sys_id);
        if (!origins.ok()) {
          SNOWCAR_LOG(kWarn, "api.state_error",
                      {{"path", request.path}, {"error", origins.status().ToString()}});
          return ApiResponse::Error(origins.status().retriable() ? 503 : 500,
                                    "state store: " + origins.status().message(), request.path);
        }
        boost::json::array versions;
        for (const state::StoredOrigin& o : *origins) {
          boost::json::object v;
          v["instance"] = o.key.instance;
          v["sys_mod_count"] = o.key.mod_count;
          v["sys_updated_on"] = TextOrNull(o.origin.sys_updated_on);
          v["operation"] = o.origin.operation;
          v["topic"] = o.origin.topic;
          v["partition"] = o.origin.partition;
          v["offset"] = o.origin.offset;
          v["correlation"] = TextOrNull(o.origin.correlation);
          v["request_id"] = TextOrNull(o.origin.request_id);
          v["recorded_at"] = FormatIso8601Millis(o.origin.written_at_ms);
          versions.push_back(std::move(v));
        }
        auto count = store.OriginCount();
        boost::json::object root;
        root["table"] = table;
        root["sys_id"] = sys_id;
        root["versions"] = std::move(versions);
        root["recorded_versions"] = count.ok() ? *count : 0;
        return ApiResponse::Json(200, root);
      }});
}

}  // namespace snowcar::api
