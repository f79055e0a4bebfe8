// SPDX-License-Identifier: Apache-2.0
// The source's socket views: GET /v1/source/tables and /v1/source/tables/{alias}.
#include <boost/json.hpp>

#include "deletes_view.h"
#include "snowcar/api/api_router.h"
#include "snowcar/common/time.h"
#include "snowcar/servicenow/table_client.h"
#include "source_direction.h"

namespace snowcar::source {

boost::json::object SourceDirection::TableJson(const TablePoller& poller) const {
  const TableStatus& s = poller.status();
  const TableStatus::View view = s.Read();
  const TableSettings& table = poller.table();
  boost::json::object out;
  out["alias"] = table.alias;
  out["table"] = table.name;
  out["topic"] = table.topic;
  out["state"] = std::string(TableStateName(view.state));
  out["phase"] = std::string(state::PhaseName(view.phase));
  boost::json::object cursor;
  cursor["ts"] = FormatSnowTimestamp(view.cursor.ts);
  cursor["sys_id"] = view.cursor.sys_id;
  out["cursor"] = std::move(cursor);
  const int64_t server_now_s = (context_.client != nullptr ? context_.client->ServerNowMillis()
                                                           : SystemClock::Instance().NowMillis()) /
                               1000;
  out["lag_seconds"] = std::max<int64_t>(0, server_now_s - view.cursor.ts);
  out["rows_emitted"] = s.rows_emitted.load();
  out["pages_fetched"] = s.pages_fetched.load();
  out["duplicates_suppressed"] = s.duplicates_suppressed.load();
  out["echo_marked"] = s.echo_marked.load();
  out["echo_suppressed"] = s.echo_suppressed.load();
  out["rows_skipped"] = s.rows_skipped.load();
  out["retries"] = s.retries.load();
  out["throttled_ms"] = s.throttled_ms.load();
  out["backoff_ms"] = s.backoff_ms.load();
  out["commits"] = s.commits.load();
  out["sweeps"] = s.sweeps.load();
  out["poll_interval_ms"] = s.poll_interval_ms.load();
  out["count_reading"] = view.count_reading;
  if (view.last_request_at_ms > 0) {
    out["last_request_at"] = FormatIso8601Millis(view.last_request_at_ms);
  } else {
    out["last_request_at"] = nullptr;
  }
  if (view.last_error.empty()) {
    out["last_error"] = nullptr;
  } else {
    out["last_error"] = view.last_error;
  }
  // deletes=audit: the table's deletes stream, the same view (rows_emitted counts its records).
  if (poller.deletes_poller()) out["deletes"] = TableJson(*poller.deletes_poller());
  if (!poller.table().alias.ends_with(kDeletesAliasSuffix)) out["deletions"] = DeletesJson(poller);
  return out;
}

Status SourceDirection::RegisterRoutes(api::ApiRouter& router) {
  SNOWCAR_RETURN_IF_ERROR(router.Add(
      {.method = "GET",
       .pattern = "/v1/source/ownership",
       .help = "source group (source.group.id): this replica, its tables, restores, handoffs",
       .handler = [this](const api::ApiRequest& request) {
         if (!ownership_) {
           return api::ApiResponse::Error(
               404, "source.group.id is not set: this replica polls every configured table",
               request.path);
         }
         return api::ApiResponse::Json(200, ownership_->Json());
       }}));
  SNOWCAR_RETURN_IF_ERROR(
      router.Add({.method = "GET",
                  .pattern = "/v1/source/tables",
                  .help = "every source table: state, phase, cursor, lag, counters, last error",
                  .handler = [this](const api::ApiRequest&) {
                    boost::json::array tables;
                    for (const auto& poller : CurrentPollers())
                      tables.push_back(TableJson(*poller));
                    boost::json::object body;
                    body["tables"] = std::move(tables);
                    return api::ApiResponse::Json(200, body);
                  }}));
  return router.Add({.method = "GET",
                     .pattern = "/v1/source/tables/{alias}",
                     .help = "one source table by alias (as in snow.tables)",
                     .handler = [this](const api::ApiRequest& request) {
                       const std::string& alias = request.Capture("alias");
                       const auto pollers = CurrentPollers();
                       for (const auto& poller : pollers) {
                         if (poller->table().alias == alias)
                           return api::ApiResponse::Json(200, TableJson(*poller));
                       }
                       std::string known;
                       for (const auto& poller : pollers) {
                         known += (known.empty() ? "" : ", ") + poller->table().alias;
                       }
                       return api::ApiResponse::Error(
                           404, "no source table with alias '" + alias + "'; configured: " + known,
                           request.path);
                     }});
}

}  // namespace snowcar::source
