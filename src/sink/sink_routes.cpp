// SPDX-License-Identifier: Apache-2.0
// The sink's socket views: /v1/sink/partitions (one entry per lane) and
// /v1/sink/correlation/{table}/{field}/{value} (the correlation cache as the sink uses it).
#include <boost/json.hpp>

#include "sink_direction.h"
#include "snowcar/api/api_router.h"
#include "snowcar/api/routes.h"

namespace snowcar::sink {
namespace {

boost::json::value OffsetValue(int64_t offset) {
  if (offset < 0) return nullptr;
  return offset;
}

boost::json::object LaneJson(const LaneStatus& s) {
  boost::json::object o;
  o["topic"] = s.tp.topic;
  o["partition"] = s.tp.partition;
  o["state"] = LaneStateName(s.state);
  o["committed_offset"] = OffsetValue(s.committed_offset);
  o["stored_offset"] = OffsetValue(s.stored_offset);
  o["in_flight_offset"] = s.in_flight_offset ? boost::json::value(*s.in_flight_offset) : nullptr;
  o["queue_depth"] = static_cast<int64_t>(s.queue_depth);
  o["completed"] = s.completed;
  o["retries"] = s.retries;
  o["backoff_ms"] = s.backoff_ms;
  o["paused"] = s.paused;
  o["active_keys"] = static_cast<int64_t>(s.active_keys);
  if (s.last_error.empty()) {
    o["last_error"] = nullptr;
  } else {
    boost::json::object e;
    e["class"] = s.last_error_class;
    e["message"] = s.last_error;
    o["last_error"] = std::move(e);
  }
  return o;
}

}  // namespace

Status SinkDirection::RegisterRoutes(api::ApiRouter& router) {
  SNOWCAR_RETURN_IF_ERROR(router.Add(api::Route{
      "GET", "/v1/sink/partitions",
      "the sink's lanes: per partition its state, committed/stored/in-flight offsets, queue, "
      "retries, last error, paused",
      false, [this](const api::ApiRequest&) {
        boost::json::array lanes;
        if (loop_) {
          for (const auto& s : loop_->lanes().Snapshot()) lanes.push_back(LaneJson(s));
        }
        boost::json::object root;
        root["subscribed"] = Started();
        root["in_flight"] = limit_.in_flight();
        root["in_flight_max"] = limit_.max_observed();
        root["max_in_flight"] = limit_.max();
        root["partitions"] = std::move(lanes);
        return api::ApiResponse::Json(200, root);
      }}));
  // The state routes' lookup, answering with the correlation field the sink is configured with.
  return router.Add(
      api::Route{"GET", "/v1/sink/correlation/{table}/{field}/{value}",
                 "the sys_id the sink has cached for a correlation value (404: none)", false,
                 api::CorrelationLookup(context_.store,
                                        {{"correlation_field", settings_.correlation_field}})});
}

}  // namespace snowcar::sink
